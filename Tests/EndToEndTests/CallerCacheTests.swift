import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// vaultd keeps what it learnt about a connection's caller, and the access rules, between
/// requests: these attack both caches on one long-lived connection (Tests/Fixtures/exec_peer.c,
/// built with gcc: a program that connects and then execs another program on the same socket).
@Suite(.serialized) struct CallerCacheTests {
    static let source = PythonFixture.packageRoot + "/Tests/Fixtures/exec_peer.c"

    /// The peer built as `name`, and a copy of it as `copy` (same content, another path and inode).
    func peers(_ vault: VaultHarness, _ name: String, _ copy: String) throws -> (String, String) {
        let binary = vault.root + "/" + name, other = vault.root + "/" + copy
        let built = try vault.run(["/usr/bin/gcc", "-O1", "-o", binary, Self.source])
        try #require(built.status == 0, "gcc could not build exec_peer: \(built.stderr)")
        try ExecutableFile.copy(binary, to: other)
        return (binary, other)
    }

    /// A running peer: `ask` sends one line and returns vaultd's answer, parsed.
    final class Peer {
        let process = Process()
        let input = Pipe(), output = Pipe()

        init(_ binary: String, socket: String) throws {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = [socket]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        func ask(_ line: String) -> [String: Any]? {
            input.fileHandleForWriting.write(Data((line + "\n").utf8))
            guard let answer = output.fileHandleForReading.availableLine() else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
        }

        func exec(_ binary: String) { input.fileHandleForWriting.write(Data("EXEC \(binary)\n".utf8)) }

        /// The process that connected exits, and a child of it (the same program, same file) goes
        /// on with the connection: true once the child says its parent is gone.
        func forkAndExit() -> Bool {
            input.fileHandleForWriting.write(Data("FORK\n".utf8))
            return output.fileHandleForReading.availableLine() == "forked"
        }

        func get() -> (secret: String?, code: String?) {
            let answer = ask(#"{"id":1,"op":"get","service":"svc","account":"acct"}"#)
            return (((answer?["result"] as? [String: Any])?["item"] as? [String: Any])?["secret"] as? String, answer?.errorCode)
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    @Test func aProgramThatExecsAnotherOnTheSameConnectionIsTheOtherForTheRules() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "acct", input: "for-the-allowed-one")
        let (allowed, other) = try peers(vault, "allowed-peer", "other-peer")
        #expect(try vault.ctl("allow", "svc", "acct", allowed).status == 0)

        // Allowed, then the same connection in another program: refused from the first request on.
        let first = try Peer(allowed, socket: vault.socketPath)
        #expect(first.get() == ("for-the-allowed-one", nil))
        #expect(first.get() == ("for-the-allowed-one", nil))
        first.exec(other)
        #expect(first.get() == (nil, "denied"))
        first.stop()

        // And the other way: a refusal is not kept for the program exec'd next.
        let second = try Peer(other, socket: vault.socketPath)
        #expect(second.get() == (nil, "denied"))
        second.exec(allowed)
        #expect(second.get() == ("for-the-allowed-one", nil))
        second.stop()

        let records = try vault.ctl("audit", "--json").text.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["op"] as? String == "get" }
        #expect(records.map { $0["exe"] as? String ?? "" } == [allowed, allowed, other, other, allowed])
    }

    /// The process that connected exits and hands the connection to a child running the same
    /// program: each request is answered as its sender (the kernel names it with the message),
    /// here the child, which runs the allowed program; never as the dead process whose pid
    /// could be anyone's next.
    @Test func aConnectionOutlivingTheProcessThatMadeItIsAnsweredAsItsSender() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "acct", input: "for-the-allowed-one")
        let (allowed, _) = try peers(vault, "allowed-peer", "other-peer")
        #expect(try vault.ctl("allow", "svc", "acct", allowed).status == 0)
        let peer = try Peer(allowed, socket: vault.socketPath)
        #expect(peer.get() == ("for-the-allowed-one", nil))
        #expect(peer.get() == ("for-the-allowed-one", nil))
        try #require(peer.forkAndExit())
        #expect(peer.get() == ("for-the-allowed-one", nil))
        #expect(peer.get() == ("for-the-allowed-one", nil))
        peer.stop()
        let pids = try vault.ctl("audit", "--json").text.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["op"] as? String == "get" }.compactMap { $0["pid"] as? Int }
        #expect(pids.count == 4 && pids[0] == pids[1] && pids[2] == pids[3] && pids[1] != pids[2], "\(pids)")
        // A new connection from the program is allowed again.
        let again = try Peer(allowed, socket: vault.socketPath)
        #expect(again.get() == ("for-the-allowed-one", nil))
        again.stop()
    }

    @Test func aRuleChangeAppliesToTheNextRequestOfAnOpenConnection() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "acct", input: "guarded")
        let (peer, other) = try peers(vault, "peer", "other-peer")
        let open = try Peer(peer, socket: vault.socketPath)
        #expect(open.get() == ("guarded", nil))
        #expect(try vault.ctl("allow", "svc", "acct", other).status == 0)
        #expect(open.get() == (nil, "denied"))
        #expect(try vault.ctl("allow", "svc", "acct", peer).status == 0)
        #expect(open.get() == ("guarded", nil))
        #expect(try vault.ctl("disallow", "svc", "acct", peer).status == 0)
        #expect(open.get() == (nil, "denied"))
        // Deleting the item removes its rules: made again, it is anyone's.
        #expect(try vault.ctl("delete", "svc", "acct").status == 0)
        try vault.ctl("set", "svc", "acct", input: "anyone's")
        #expect(open.get() == ("anyone's", nil))
        open.stop()
    }
}
