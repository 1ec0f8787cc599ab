import Foundation
import Testing
@testable import VaultDaemon
import VaultCore

/// org.freedesktop.Secret.Service in-process: sessions, aliases, lock, secrets in bulk, and the
/// closed set of methods each object answers.
@Suite struct ServiceObjectTests {
    let bus: ProviderHarness
    init() throws { bus = try ProviderHarness() }

    static let service = ServiceObject.interface

    @Test func eachObjectAnswersExactlyTheMethodsItsInterfaceDeclares() throws {
        let xml = SecretServiceInterfaces.xml
        func declared(_ interface: String) throws -> Set<String> {
            let start = try requireValue(xml.range(of: "<interface name=\"\(interface)\">"))
            let body = xml[start.upperBound...].prefix { _ in true }
            let end = try requireValue(body.range(of: "</interface>"))
            let methods = body[..<end.lowerBound].components(separatedBy: "<method name=\"").dropFirst()
            return Set(methods.map { String($0.prefix { $0 != "\"" }) })
        }
        #expect(try declared(ServiceObject.interface) == Set(ServiceObject.Method.allCases.map(\.rawValue)))
        #expect(try declared(CollectionObject.interface) == Set(CollectionObject.Method.allCases.map(\.rawValue)))
        #expect(try declared(ItemObject.interface) == Set(ItemObject.Method.allCases.map(\.rawValue)))
        #expect(try declared(SessionObject.interface) == Set(SessionObject.Method.allCases.map(\.rawValue)))
        #expect(try declared(PromptObject.interface) == Set(PromptObject.Method.allCases.map(\.rawValue)))
        #expect(try declared(ProviderObject.interface).isEmpty && ProviderObject.Method.allCases.isEmpty)
    }

    @Test func aMemberOrInterfaceNotExportedIsNotSupported() {
        #expect(bus.call(Self.service, "DeleteEverything").failure?.name == "org.freedesktop.DBus.Error.NotSupported")
        #expect(bus.call("org.example.Other", "Anything").failure?.name == "org.freedesktop.DBus.Error.NotSupported")
        #expect(bus.call(Self.service, "OpenSession", at: SecretServicePath.collection, [.string("plain"), .variant(.string(""))]).failure?.name
                == "org.freedesktop.Secret.Error.NoSuchObject")
    }

    @Test func sessionsOpenWithTheTwoAlgorithmsOnlyAndHostileKeysAreRefusedUncopied() throws {
        let session = try bus.openPlainSession()
        #expect(session.hasPrefix(SecretServicePath.sessionPrefix))
        let unknown = bus.call(Self.service, "OpenSession", [.string("rot13\u{1b}[2J"), .variant(.string(""))]).failure
        #expect(unknown?.name == "org.freedesktop.DBus.Error.NotSupported")
        #expect(unknown.map { !$0.message.contains("\u{1b}") } == true, "control characters from the caller are not echoed")
        let huge = bus.call(Self.service, "OpenSession", [.string(SecretServiceSession.dh), .variant(.bytes(SecretBytes(Array(repeating: 7, count: 300))))]).failure
        #expect(huge?.name == "org.freedesktop.DBus.Error.InvalidArgs" && huge?.message.contains("limit is 256") == true)
        let notBytes = bus.call(Self.service, "OpenSession", [.string(SecretServiceSession.dh), .variant(.string("key"))]).failure
        #expect(notBytes?.name == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func theAliasesNameTheOneCollectionAndNoOtherCanBeMade() throws {
        #expect(try bus.value(Self.service, "ReadAlias", [.string("default")])?.child(0)?.string == SecretServicePath.collection)
        #expect(try bus.value(Self.service, "ReadAlias", [.string("work")])?.child(0)?.string == SecretServicePath.none)
        let made = try bus.value(Self.service, "CreateCollection", [.dictionary(valueType: "v", []), .string("default")])
        #expect(made?.child(0)?.string == SecretServicePath.collection)
        #expect(bus.call(Self.service, "CreateCollection", [.dictionary(valueType: "v", []), .string("work")]).failure?.name == "org.freedesktop.DBus.Error.NotSupported")
        #expect(bus.call(Self.service, "SetAlias", [.string("default"), .objectPath("/elsewhere")]).failure?.name == "org.freedesktop.DBus.Error.NotSupported")
        #expect(bus.call(Self.service, "SetAlias", [.string("login"), .objectPath(SecretServicePath.collection)]).failure == nil)
    }

    @Test func getSecretsReadsAllOrNoneThroughTheCallersOwnSession() throws {
        let open = try bus.createItem(["service": "db", "username": "app"], secret: "open")
        let guarded = try bus.createItem(["service": "api", "username": "ci"], secret: "guarded")
        let session = try bus.openPlainSession()
        let both = try bus.value(Self.service, "GetSecrets", [.objectPaths([open, guarded, "/not/an/item"]), .objectPath(session)])
        #expect(both?.child(0)?.childCount == 2)
        // Someone else's session is no session.
        let foreign = try bus.openPlainSession(by: ProviderHarness.other)
        #expect(bus.call(Self.service, "GetSecrets", [.objectPaths([open]), .objectPath(foreign)]).failure?.name == "org.freedesktop.Secret.Error.NoSession")
        // A rule on one item refuses the whole call: a bus caller without a process matches none.
        _ = try bus.items.allow(try ItemKey(service: "api", account: "ci"), program: "/usr/bin/env", by: ItemRequest(.unknown))
        let refused = bus.call(Self.service, "GetSecrets", [.objectPaths([open, guarded]), .objectPath(session)]).failure
        #expect(refused?.name == "org.freedesktop.DBus.Error.AccessDenied")
    }

    @Test func lockLocksTheVaultAndNamesOnlyLockableObjects() throws {
        let item = try bus.createItem(["service": "db", "username": "app"], secret: "s")
        let locked = try bus.value(Self.service, "Lock", [.objectPaths([item, SecretServicePath.collection, "/org/freedesktop/secrets/session/x"])])
        #expect(try locked?.child(0)?.strings(atMost: 10) == [item, SecretServicePath.collection])
        #expect(try bus.store.read { $0.status().isLocked })
        #expect(try bus.value(Self.service, "SearchItems", [.stringDictionary([:])])?.child(0)?.childCount == 0)
    }

    @Test func tooManyObjectsInOneCallAreRefusedBeforeAnyIsRead() {
        let paths = (0...ServiceObject.maxObjectsPerCall).map { _ in SecretServicePath.collection }
        #expect(bus.call(Self.service, "Unlock", [.objectPaths(paths)]).failure?.name == "org.freedesktop.DBus.Error.LimitsExceeded")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
