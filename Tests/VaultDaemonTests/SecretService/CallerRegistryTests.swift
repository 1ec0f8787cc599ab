import CVaultShims
import Foundation
import Testing
@testable import VaultDaemon
import VaultCore
import VaultSystem

/// Who calls the provider: only vaultd's user is served; a caller the bus cannot describe, or
/// that left while it was asked about, is refused and not remembered.
@Suite struct CallerRegistryTests {
    func registry(_ askBus: @escaping CallerRegistry.AskBus) -> CallerRegistry {
        CallerRegistry(askBus: askBus, status: SecretServiceProviderStatus(), trustBusPIDs: false, logger: Logger(handler: RecordingLogHandler()))
    }

    @Test func anotherUsersConnectionIsRefusedEveryCall() throws {
        let bus = try ProviderHarness()
        bus.uids.withLock { $0[ProviderHarness.other] = getuid() &+ 1 }
        for _ in 0..<2 {
            let refused = bus.call(ServiceObject.interface, "ReadAlias", [.string("default")], by: ProviderHarness.other).failure
            #expect(refused?.name == "org.freedesktop.DBus.Error.AccessDenied" && refused?.message.contains("serves only uid") == true)
        }
        #expect(bus.call(ServiceObject.interface, "ReadAlias", [.string("default")]).failure == nil)
    }

    @Test func aCallerTheBusCannotDescribeIsRefusedAndAskedAgainNextTime() throws {
        let asked = AdaptiveLock(0)
        let callers = registry { _ in
            asked.withLock { $0 += 1 }
            return .failure(.accessDenied("vaultd could not learn who is calling: no such name"))
        }
        #expect(throws: BusError.accessDenied("vaultd could not learn who is calling: no such name")) { try callers.check(":1.5") }
        #expect(throws: BusError.self) { try callers.check(":1.5") }
        #expect(asked.withLock { $0 } == 2 && !callers.isOnBus(":1.5"))
    }

    @Test func aCallerThatLeavesWhileBeingAskedAboutIsNotKept() throws {
        let holder = AdaptiveLock<CallerRegistry?>(nil)
        let callers = registry { name in
            holder.withLock { $0 }?.vanished(name)
            return .success(CallerRegistry.Credentials(uid: getuid(), pid: nil))
        }
        holder.withLock { $0 = callers }
        #expect(throws: BusError.failed("the caller left the bus")) { try callers.check(":1.6") }
        #expect(!callers.isOnBus(":1.6"))
    }

    @Test func aCallerWithoutAProcessIsNobodyInParticular() throws {
        let callers = registry { _ in .success(CallerRegistry.Credentials(uid: getuid(), pid: nil)) }
        try callers.check(":1.7")
        #expect(callers.isOnBus(":1.7"))
        #expect(callers.identity(of: ":1.7").pid == nil)
        #expect(callers.identity(of: ":1.99").pid == nil)
    }

    /// A connection asked about as it came onto the bus is known at its first call (the bus is
    /// not asked again); an answer for a name that left, or that a call asked about meanwhile,
    /// is dropped with its pidfd; a failed one leaves the first call to ask.
    @Test func aConnectionAskedAboutAsItCameIsKnownAtItsFirstCall() throws {
        let asked = AdaptiveLock([String]())
        let callers = registry { name in
            asked.withLock { $0.append(name) }
            return .success(CallerRegistry.Credentials(uid: getuid(), pid: nil))
        }
        #expect(callers.asksAhead)
        callers.appeared(":1.10")
        callers.askedAhead(":1.10", .success(CallerRegistry.Credentials(uid: getuid(), pid: nil)))
        #expect(callers.isOnBus(":1.10"))
        try callers.check(":1.10")
        // Another user's connection is known as early, and refused as ever.
        callers.appeared(":1.11")
        callers.askedAhead(":1.11", .success(CallerRegistry.Credentials(uid: getuid() &+ 1, pid: nil)))
        #expect(throws: BusError.self) { try callers.check(":1.11") }
        // Gone before the answer came: not kept (its pidfd is closed).
        callers.appeared(":1.12")
        callers.vanished(":1.12")
        let fd = vault_pidfd_open(getpid())
        try #require(fd >= 0)
        callers.askedAhead(":1.12", .success(CallerRegistry.Credentials(uid: getuid(), pid: getpid(), processFD: fd)))
        #expect(!callers.isOnBus(":1.12"))
        // Not answered: the first call asks.
        callers.appeared(":1.13")
        callers.askedAhead(":1.13", .failure(.failed("the bus did not say who the caller is")))
        try callers.check(":1.13")
        #expect(asked.withLock { $0 } == [":1.13"])
    }
}
