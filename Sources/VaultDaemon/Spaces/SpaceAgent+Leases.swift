import Foundation
import VaultCore
import VaultRemotes
import VaultSpaces
import VaultSystem

/// A signed-in session shared in a space is refreshed by one machine at a time: the one holding
/// its lease, `leases/NAME` (NAME its item's entry name), taken with check-and-set and held for
/// at most `leaseTime`. The holder pulls first (another machine may just have refreshed it, and
/// then nothing is spent), refreshes, pushes the new tokens at once and gives the lease back;
/// the others wait for it, then pull those tokens. No refresh token is spent twice.
extension SpaceAgent {
    static let leaseTime: Double = 60

    /// The space that shares `key`, if one does.
    func sharing(_ key: ItemKey) -> SpaceState? {
        states().first { $0.admitted && $0.tracked(key.service, key.account) != nil }
    }

    /// Runs `body` holding the lease of `key` in space `name`, until `deadline`
    /// (`Clock.monotonicSeconds()`) at most; then `VaultError.busy` without running it.
    func withLease<R>(_ key: ItemKey, in name: String, until deadline: Double, _ body: () throws -> R) throws -> R {
        let state = try state(name)
        let me = try state.deviceID()
        // Named under the first generation, which every member holds: a rotation does not give
        // the devices that learned of it a lease of their own.
        let first = try state.key(state.keys.keys.compactMap(Int.init).min() ?? state.generation)
        let lease = "leases/" + (try first.entryName(service: key.service, account: key.account))
        let busy = VaultError.busy(path: "the refresh lease of a session shared in space '\(name)'")
        while try !take(lease, in: state, as: me) {
            guard Clock.monotonicSeconds() + 0.25 < deadline else { throw busy }
            Thread.sleep(forTimeInterval: 0.25)
        }
        var giveBack = true
        defer { if giveBack { give(lease, in: state, as: me) } }
        try? sync(name)  // the tokens another machine just refreshed, if it did
        // Held again, for a whole lease time, right before the refresh: the round may have
        // outlasted the lease, and then another machine may hold it now.
        guard try take(lease, in: state, as: me) else { throw busy }
        let result = try body()
        do {
            try sync(name)  // the tokens refreshed here, to the others now
        } catch {
            // The new tokens are only here: the lease is left to run out, not given back, so
            // that another machine does not take it at once and spend the old refresh token.
            giveBack = false
            logger.warning("space '\(name)': a refreshed session could not be pushed (\(error)); its lease runs out in \(Int(Self.leaseTime)) s")
        }
        return result
    }

    /// Takes the lease when it is free, expired or ours; false while another device holds it.
    private func take(_ lease: String, in state: SpaceState, as me: String) throws -> Bool {
        let now = Int64(clock() * 1000)
        return try engine(state.remote, root: state.root, doing: "taking a session's refresh lease in space '\(state.name)'") { engine throws(EngineError) -> Bool in
            let current = try engine.read(lease)
            if let current, let holder = current.fields["device"], holder != me,
               let expires = current.fields["expires"].flatMap({ Int64($0) }), expires > now {
                return false
            }
            do throws(EngineError) {
                _ = try engine.write(lease, ["device": me, "expires": String(now + Int64(Self.leaseTime * 1000))], cas: current?.version ?? 0)
                return true
            } catch .checkAndSet {
                return false
            }
        }
    }

    /// Gives the lease back (it expires by itself if this fails).
    private func give(_ lease: String, in state: SpaceState, as me: String) {
        _ = try? engine(state.remote, root: state.root, doing: "giving back a session's refresh lease") { engine throws(EngineError) in
            guard let current = try engine.read(lease), current.fields["device"] == me else { return }
            _ = try engine.write(lease, ["device": me, "expires": "0"], cas: current.version)
        }
    }
}
