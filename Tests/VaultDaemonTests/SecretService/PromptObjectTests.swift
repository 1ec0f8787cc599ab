import Foundation
import Testing
@testable import VaultDaemon
import VaultCore

/// org.freedesktop.Secret.Prompt in-process: Unlock's prompt completes when the vault is
/// unlocked by other means, or is dismissed; its signal goes to its owner only.
@Suite struct PromptObjectTests {
    static let prompt = PromptObject.interface

    func lockedUnlock(_ bus: ProviderHarness, objects: [String] = [SecretServicePath.collection]) throws -> String {
        try bus.store.lock()
        let answer = try requireValue(bus.value(ServiceObject.interface, "Unlock", [.objectPaths(objects)]))
        #expect(answer.child(0)?.childCount == 0)
        return try requireValue(answer.child(1)?.string)
    }

    @Test func unlockingAnUnlockedVaultNeedsNoPrompt() throws {
        let bus = try ProviderHarness()
        let answer = try bus.value(ServiceObject.interface, "Unlock", [.objectPaths([SecretServicePath.collection, "/nonsense"])])
        #expect(try answer?.child(0)?.strings(atMost: 10) == [SecretServicePath.collection])
        #expect(answer?.child(1)?.string == SecretServicePath.none)
    }

    @Test func aStartedPromptCompletesToItsOwnerOnceTheVaultIsUnlocked() throws {
        let bus = try ProviderHarness()
        let path = try lockedUnlock(bus)
        #expect(bus.call(Self.prompt, "Prompt", at: path, [.string("")], by: ProviderHarness.other).failure?.name == "org.freedesktop.Secret.Error.NoSuchObject")
        let reply = try bus.call(Self.prompt, "Prompt", at: path, [.string("")]).get()
        reply.afterAnswer?()
        #expect(bus.signals.all.isEmpty, "still locked: nothing completes")
        bus.store.unlockAsync(from: .environment, environment: ["VAULT_PASSPHRASE": "the vault's passphrase"]) { _ in }
        let completed = try requireValue(bus.signals.wait(for: "Completed"))
        #expect(completed.path == path && completed.destination == ProviderHarness.me)
        #expect(completed.arguments.child(0)?.boolean == false)
        #expect(try completed.arguments.child(1)?.unboxed?.strings(atMost: 10) == [SecretServicePath.collection])
    }

    @Test func dismissCompletesAfterTheReplyAndOnlyOnce() throws {
        let bus = try ProviderHarness()
        let path = try lockedUnlock(bus)
        let reply = try bus.call(Self.prompt, "Dismiss", at: path).get()
        #expect(bus.signals.all.isEmpty, "Completed must not come before the reply")
        reply.afterAnswer?()
        reply.afterAnswer?()
        #expect(bus.signals.all.count == 1 && bus.signals.all.first?.arguments.child(0)?.boolean == true)
        #expect(bus.call(Self.prompt, "Prompt", at: path, [.string("")]).failure?.name == "org.freedesktop.Secret.Error.NoSuchObject")
    }

    @Test func aStartedPromptNobodyAnswersIsDismissedAfterItsTimeOut() throws {
        let bus = try ProviderHarness(promptTimeout: 0.2)
        let path = try lockedUnlock(bus)
        _ = try bus.call(Self.prompt, "Prompt", at: path, [.string("")]).get()
        let completed = try requireValue(bus.signals.wait(for: "Completed"))
        #expect(completed.arguments.child(0)?.boolean == true)
        #expect(bus.provider.prompts.count == 0)
    }

    @Test func aConnectionsPromptsGoWhenItLeavesTheBusAndAreBounded() throws {
        let bus = try ProviderHarness()
        _ = try lockedUnlock(bus)
        bus.leave(ProviderHarness.me)
        #expect(bus.provider.prompts.count == 0)
        for _ in 0..<PromptObject.perCaller { _ = try bus.value(ServiceObject.interface, "Unlock", [.objectPaths([])], by: ProviderHarness.other) }
        #expect(bus.call(ServiceObject.interface, "Unlock", [.objectPaths([])], by: ProviderHarness.other).failure?.name == "org.freedesktop.DBus.Error.LimitsExceeded")
    }
}
