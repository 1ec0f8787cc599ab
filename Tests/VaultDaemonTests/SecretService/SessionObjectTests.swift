import Foundation
import Testing
@testable import VaultDaemon
import VaultCore

/// org.freedesktop.Secret.Session in-process: one connection's sessions are its own, bounded,
/// and gone with it.
@Suite struct SessionObjectTests {
    let bus: ProviderHarness
    init() throws { bus = try ProviderHarness() }

    static let session = SessionObject.interface

    @Test func onlyTheOwnerClosesItsSessionAndAClosedOneIsGone() throws {
        let path = try bus.openPlainSession()
        #expect(bus.call(Self.session, "Close", at: path, by: ProviderHarness.other).failure?.name == "org.freedesktop.Secret.Error.NoSession")
        try bus.call(Self.session, "Close", at: path).get()
        #expect(bus.call(Self.session, "Close", at: path).failure?.name == "org.freedesktop.Secret.Error.NoSession")
        #expect(bus.provider.sessions.count == 0)
    }

    @Test func oneConnectionHoldsAtMostItsShareOfSessions() throws {
        for _ in 0..<SessionObject.perCaller { _ = try bus.openPlainSession() }
        #expect(throws: BusError.self) { try bus.openPlainSession() }
        _ = try bus.openPlainSession(by: ProviderHarness.other)
    }

    @Test func aConnectionsSessionsCloseWhenItLeavesTheBus() throws {
        let mine = try bus.openPlainSession()
        _ = try bus.openPlainSession(by: ProviderHarness.other)
        bus.leave(ProviderHarness.me)
        #expect(bus.provider.sessions.count == 1)
        #expect(throws: BusError.self) { try bus.provider.sessions.session(mine, of: ProviderHarness.me) }
    }

    @Test func aSessionOpenedForACallerThatLeftMeanwhileIsNotKept() throws {
        // The caller was checked, then left the bus before its session was added.
        try bus.provider.callers.check(ProviderHarness.me)
        bus.leave(ProviderHarness.me)
        #expect(throws: BusError.failed("the caller left the bus")) {
            try bus.provider.sessions.open(algorithm: SecretServiceSession.plain, input: BusVariant(retaining: BusValue.string("").make()), owner: ProviderHarness.me)
        }
        #expect(bus.provider.sessions.count == 0)
    }
}
