import Foundation
import Testing
@testable import VaultDaemon
import VaultCore

/// org.freedesktop.Secret.Item in-process: secrets read and written through the caller's own
/// session, labels and attributes changed, items moved and deleted, vault's own records unseen.
@Suite struct ItemObjectTests {
    let bus: ProviderHarness
    init() throws { bus = try ProviderHarness() }

    static let item = ItemObject.interface

    func property(_ name: String, of path: String) throws -> BusVariant? {
        try bus.value(ProviderHarness.properties, "Get", at: path, [.string(Self.item), .string(name)])?.child(0)?.unboxed
    }

    @Test func theSecretComesBackThroughTheCallersSessionWithItsContentType() throws {
        let path = try bus.createItem(["service": "db", "username": "app"], secret: "first")
        let session = try bus.openPlainSession()
        let secret = try requireValue(bus.value(Self.item, "GetSecret", at: path, [.objectPath(session)])?.child(0))
        #expect(secret.child(0)?.string == session)
        #expect(try secret.child(2)?.secretBytes(atMost: 100, "secret") == SecretBytes(utf8: "first"))
        try bus.call(Self.item, "SetSecret", at: path, [ProviderHarness.secret("second", session: session, contentType: "application/json")]).get()
        let changed = try requireValue(bus.value(Self.item, "GetSecret", at: path, [.objectPath(session)])?.child(0))
        #expect(try changed.child(2)?.secretBytes(atMost: 100, "secret") == SecretBytes(utf8: "second"))
        #expect(changed.child(3)?.string == "application/json")
        let foreign = try bus.openPlainSession(by: ProviderHarness.other)
        #expect(bus.call(Self.item, "GetSecret", at: path, [.objectPath(foreign)]).failure?.name == "org.freedesktop.Secret.Error.NoSession")
    }

    @Test func labelAndAttributesChangeAndNewNamesMoveTheItem() throws {
        let path = try bus.createItem(["service": "db", "username": "app", "env": "prod"], secret: "pw", label: "old")
        try bus.call(ProviderHarness.properties, "Set", at: path, [.string(Self.item), .string("Label"), .variant(.string("new"))]).get()
        #expect(try property("Label", of: path)?.string == "new")
        let moved = ["service": "db", "username": "admin", "env": "dev"]
        try bus.call(ProviderHarness.properties, "Set", at: path, [.string(Self.item), .string("Attributes"), .variant(.stringDictionary(moved))]).get()
        let target = SecretServicePath.item(try ItemKey(service: "db", account: "admin"))
        #expect(try property("Attributes", of: target)?.stringDictionary(nameBytes: 100, valueBytes: 100)["env"] == "dev")
        #expect(bus.call(ProviderHarness.properties, "Get", at: path, [.string(Self.item), .string("Label")]).failure?.name == "org.freedesktop.Secret.Error.NoSuchObject")
    }

    @Test func deleteRemovesItAndVaultsOwnRecordsAreNoObjects() throws {
        let path = try bus.createItem(["service": "db", "username": "app"], secret: "pw")
        #expect(try bus.value(Self.item, "Delete", at: path)?.child(0)?.string == SecretServicePath.none)
        let session = try bus.openPlainSession()
        #expect(bus.call(Self.item, "GetSecret", at: path, [.objectPath(session)]).failure?.name == "org.freedesktop.Secret.Error.NoSuchObject")
        let reserved = SecretServicePath.item(try ItemKey(service: "vault.access", account: "rules"))
        #expect(bus.call(Self.item, "GetSecret", at: reserved, [.objectPath(session)]).failure?.name == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(bus.call(Self.item, "Delete", at: SecretServicePath.collection + "/izz_00").failure?.name == "org.freedesktop.Secret.Error.NoSuchObject")
    }

    @Test func aSignInSessionIsNoItemOverTheBus() throws {
        let key = try ItemKey(service: "supabase", account: "me")
        _ = try bus.items.write(key, secret: SecretBytes(utf8: "{}"), changes: ItemChanges(kind: .session), replacing: true, confirm: false, by: ItemRequest(.unknown))
        let session = try bus.openPlainSession()
        #expect(bus.call(Self.item, "GetSecret", at: SecretServicePath.item(key), [.objectPath(session)]).failure?.name == "org.freedesktop.Secret.Error.NoSuchObject")
        #expect(try bus.value(ServiceObject.interface, "SearchItems", [.stringDictionary([:])])?.child(0)?.childCount == 0)
    }

    @Test func whileLockedOnlyThatItIsLockedIsKnown() throws {
        let path = try bus.createItem(["service": "db", "username": "app"], secret: "pw", label: "visible")
        let session = try bus.openPlainSession()
        try bus.store.lock()
        #expect(try property("Locked", of: path)?.boolean == true)
        #expect(try property("Label", of: path)?.string == "")
        #expect(bus.call(Self.item, "GetSecret", at: path, [.objectPath(session)]).failure?.name == "org.freedesktop.Secret.Error.IsLocked")
    }
}
