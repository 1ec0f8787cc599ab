import Foundation
import Testing
@testable import VaultDaemon
import VaultCore

/// org.freedesktop.Secret.Collection in-process: the vault's plain secrets, created, searched,
/// and described; never deleted or renamed.
@Suite struct CollectionObjectTests {
    let bus: ProviderHarness
    init() throws { bus = try ProviderHarness() }

    static let collection = CollectionObject.interface
    let path = SecretServicePath.collection

    @Test func aCreatedItemIsFoundByItsAttributesUnderEveryPathOfTheCollection() throws {
        let item = try bus.createItem(["service": "db", "username": "app", "env": "prod"], secret: "pw")
        #expect(item == SecretServicePath.item(try ItemKey(service: "db", account: "app")))
        for collection in [path, SecretServicePath.aliasPrefix + "default"] {
            let found = try bus.value(Self.collection, "SearchItems", at: collection, [.stringDictionary(["env": "prod"])])
            #expect(try found?.child(0)?.strings(atMost: 10) == [item])
        }
        #expect(try bus.value(Self.collection, "SearchItems", at: path, [.stringDictionary(["env": "dev"])])?.child(0)?.childCount == 0)
        let all = try bus.value(ProviderHarness.properties, "GetAll", at: path, [.string(Self.collection)])
        #expect(all?.child(0)?.childCount == 5)
    }

    @Test func itCannotBeDeletedOrRenamedAndOtherPathsAreNoCollection() throws {
        #expect(bus.call(Self.collection, "Delete", at: path).failure?.name == "org.freedesktop.DBus.Error.NotSupported")
        #expect(bus.call(ProviderHarness.properties, "Set", at: path, [.string(Self.collection), .string("Label"), .variant(.string("Mine"))]).failure?.name
                == "org.freedesktop.DBus.Error.NotSupported")
        #expect(bus.call(Self.collection, "SearchItems", at: SecretServicePath.aliasPrefix + "work", [.stringDictionary([:])]).failure?.name
                == "org.freedesktop.Secret.Error.NoSuchObject")
    }

    @Test func aSecretSentThroughAnotherConnectionsSessionCreatesNothing() throws {
        let foreign = try bus.openPlainSession(by: ProviderHarness.other)
        let properties = BusValue.dictionary(valueType: "v", [("org.freedesktop.Secret.Item.Attributes", .variant(.stringDictionary(["service": "x", "username": "y"])))])
        let refused = bus.call(Self.collection, "CreateItem", at: path, [properties, ProviderHarness.secret("s", session: foreign), .boolean(true)])
        #expect(refused.failure?.name == "org.freedesktop.Secret.Error.NoSession")
        #expect(try bus.items.search([:], in: .everyKind).isEmpty)
    }

    @Test func hostilePropertiesAndSecretsAreRefusedAndNothingIsWritten() throws {
        let session = try bus.openPlainSession()
        let badLabel = BusValue.dictionary(valueType: "v", [("org.freedesktop.Secret.Item.Label", .variant(.uint64(1)))])
        #expect(bus.call(Self.collection, "CreateItem", at: path, [badLabel, ProviderHarness.secret("s", session: session), .boolean(true)]).failure?.name
                == "org.freedesktop.DBus.Error.InvalidArgs")
        let named = BusValue.dictionary(valueType: "v", [("org.freedesktop.Secret.Item.Attributes", .variant(.stringDictionary(["service": "x", "username": "y"])))])
        let withParameters = BusValue.tuple([.objectPath(session), .bytes(SecretBytes(utf8: "iv")), .bytes(SecretBytes(utf8: "s")), .string("text/plain")])
        #expect(bus.call(Self.collection, "CreateItem", at: path, [named, withParameters, .boolean(true)]).failure?.name == "org.freedesktop.DBus.Error.InvalidArgs")
        let badType = ProviderHarness.secret("s", session: session, contentType: "text/plain\nX-Injected: 1")
        #expect(bus.call(Self.collection, "CreateItem", at: path, [named, badType, .boolean(true)]).failure?.name == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(try bus.items.search([:], in: .everyKind).isEmpty)
    }

    @Test func whileLockedItHasNoItemsAndSaysSo() throws {
        try bus.createItem(["service": "db", "username": "app"], secret: "pw")
        try bus.store.lock()
        let all = try requireValue(bus.value(ProviderHarness.properties, "GetAll", at: path, [.string(Self.collection)])?.child(0))
        let values = (0..<all.childCount).compactMap { all.child($0) }.map { ($0.child(0)?.string ?? "", $0.child(1)?.unboxed) }
        #expect(values.first { $0.0 == "Locked" }?.1?.boolean == true)
        #expect(values.first { $0.0 == "Items" }?.1?.childCount == 0)
    }
}

extension ProviderHarness {
    static let properties = SecretServiceProvider.propertiesInterface
}
