import Foundation
import Testing
import VaultCore
import VaultSystem

/// vaultd's socket, protocol handling, limits and lifecycle.
@Suite struct DaemonTests {
    @Test func tenSimultaneousCallsWithNoDaemonStartExactlyOne() throws {
        let vault = VaultHarness()
        #expect(vault.daemonPIDs().isEmpty)
        let processes = try (0..<10).map { index in
            try vault.startCtl(["set", "race", "caller-\(index)"], input: "value-\(index)").process
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        usleep(300_000)  // let the losing daemons finish exiting
        #expect(vault.daemonPIDs().count == 1)
        for index in 0..<10 {
            #expect(try vault.ctl("get", "race", "caller-\(index)").stdout == Array("value-\(index)".utf8))
        }
    }

    @Test func sigtermFinishesAndRemovesTheSocket() throws {
        let vault = VaultHarness()
        let daemon = try vault.startDaemon()
        try vault.ctl("set", "a", "b", input: "x")
        #expect(FileManager.default.fileExists(atPath: vault.socketPath))
        #expect(vault.terminate(daemon), "vaultd did not stop on SIGTERM")
        #expect(daemon.terminationReason == .exit && daemon.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: vault.socketPath))
        #expect(vault.foregroundLog.contains("SIGTERM: shutting down"))
    }

    @Test func aSecondDaemonExitsAndAStaleSocketIsReplaced() throws {
        let vault = VaultHarness()
        // A socket file left behind by a daemon that died.
        try FileManager.default.createDirectory(atPath: vault.root + "/run/vault", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let stale = try UnixSocket.stream()
        try UnixSocket.bind(stale, path: vault.socketPath)
        stale.close()
        #expect(FileManager.default.fileExists(atPath: vault.socketPath))

        _ = try vault.startDaemon()
        #expect(try vault.ctl("status").status == 0)
        let second = try vault.run([VaultHarness.vaultd])
        #expect(second.status == 0)
        #expect(second.stderr.contains("already running"))
        #expect(vault.daemonPIDs().count == 1)
    }

    @Test func aSocketDirectoryOthersCanEnterIsRefused() throws {
        let vault = VaultHarness()
        try FileManager.default.createDirectory(atPath: vault.root + "/run/vault", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        chmod(vault.root + "/run/vault", 0o755)
        let result = try vault.run([VaultHarness.vaultd])
        #expect(result.status == 1)
        #expect(result.stderr.contains("chmod 700"))
    }

    @Test func garbageAndMalformedRequestsGetErrorsAndTheConnectionStaysUsable() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon()
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        try connection.send([0xff, 0xfe, 0x00, 0x13, 0x37, 0x80, 10])
        #expect(try connection.receive()?.errorCode == "bad_request")
        let cases: [(String, String)] = [
            ("{not json", "bad_request"),
            (#"[1,2,3]"#, "bad_request"),
            (#"{"id":1}"#, "bad_request"),
            (#"{"id":2,"op":"explode"}"#, "bad_request"),
            (#"{"id":3,"op":"get","service":42,"account":"a"}"#, "bad_request"),
            (#"{"id":4,"op":"get","service":"s"}"#, "bad_request"),
            (#"{"id":5,"op":"set","service":"s","account":"a"}"#, "bad_request"),
            (#"{"id":6,"op":"set","service":"s","account":"a","secret_b64":"%%%"}"#, "bad_request"),
            (#"{"id":7,"op":"set","service":"","account":"a","secret":"x"}"#, "bad_request"),
            (#"{"id":8,"op":"get","service":"s","account":"missing"}"#, "not_found"),
            ("{\"id\":9,\"op\":\"get\",\"service\":\"\u{e9}\",\"account\":\"a\"}", "not_found"),
        ]
        for (line, code) in cases {
            let response = try connection.request(line)
            #expect(response?.errorCode == code, "\(line) -> \(String(describing: response))")
        }
        let echoed = try connection.request(#"{"id":"abc","op":"nope"}"#)
        #expect(echoed?["id"] as? String == "abc")
        // Invalid UTF-8 inside a JSON string.
        try connection.send(Array(#"{"id":10,"op":"get","service":""#.utf8) + [0xc3, 0x28] + Array(#"","account":"a"}"#.utf8) + [10])
        #expect(try connection.receive()?.errorCode == "bad_request")
        // Several requests in one write are answered in order.
        try connection.send(#"{"id":11,"op":"status"}"# + "\n" + #"{"id":12,"op":"list"}"# + "\n")
        #expect(try connection.receive()?["id"] as? Int == 11)
        #expect(try connection.receive()?["id"] as? Int == 12)
        // Deep nesting must not exhaust a connection thread's stack.
        for attack in [String(repeating: "[", count: 200_000), #"{"id":"# + String(repeating: "[", count: 100_000)] {
            #expect(try connection.request(attack)?.errorCode == "bad_request")
        }
        let status = try connection.request(#"{"id":13,"op":"status"}"#)
        #expect(status?.ok == true)
    }

    @Test func anOversizedRequestIsRefusedAndTheConnectionClosed() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon()
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        let huge = #"{"id":1,"op":"set","service":"s","account":"a","secret":""# + String(repeating: "A", count: 300 * 1024) + "\"}\n"
        // The daemon may close before reading everything: a failed write is fine, the answer is what counts.
        try? connection.send(huge)
        #expect(try connection.receive()?.errorCode == "too_large")
        #expect(try connection.receive() == nil)
        // Other clients never notice.
        #expect(try vault.ctl("status").status == 0)
        #expect(try vault.ctl("get", "s", "a").status == 3)
    }

    @Test func fiftyConcurrentClientsAreAllServed() throws {
        let vault = VaultHarness()
        // 50 connections from this one process below: above the default per-process cap.
        _ = try vault.startDaemon(["--max-connections-per-process", "64"])
        let processes = try (0..<50).map { index in
            try vault.startCtl(["set", "many", "client-\(index)"], input: "secret-\(index)").process
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.filter { $0.terminationStatus != 0 }.isEmpty)

        // And 50 connections open at once, each making requests.
        let connections = try (0..<50).map { _ in try RawConnection(path: vault.socketPath) }
        for (index, connection) in connections.enumerated() {
            try connection.send(#"{"id":\#(index),"op":"get","service":"many","account":"client-\#(index)"}"# + "\n")
        }
        for (index, connection) in connections.enumerated() {
            let response = try connection.receive()
            let item = (response?["result"] as? [String: Any])?["item"] as? [String: Any]
            #expect(item?["secret"] as? String == "secret-\(index)")
            connection.close()
        }
    }

    @Test func connectionsBeyondTheLimitAreRefusedClearly() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--max-connections", "2", "--max-connections-per-process", "2"])
        // The harness's readiness probe may still count for a moment: retry until admitted.
        func admitted() throws -> RawConnection {
            for _ in 0..<100 {
                let connection = try RawConnection(path: vault.socketPath)
                if (try? connection.request(#"{"id":1,"op":"status"}"#))??.ok == true { return connection }
                connection.close()
                usleep(20_000)
            }
            throw VaultError.unavailable("never admitted")
        }
        let first = try admitted(), second = try admitted()
        defer { first.close(); second.close() }
        // Both in the middle of a request: neither may be closed to make room.
        try first.send(#"{"id":2,"#)
        try second.send(#"{"id":2,"#)
        let third = try RawConnection(path: vault.socketPath)
        defer { third.close() }
        let refusal = try third.receive()
        #expect(refusal?.errorCode == "unavailable")
        #expect(try third.receive() == nil)
    }

    @Test func idleConnectionsAreClosed() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--idle-timeout", "1s"])
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        #expect(try connection.request(#"{"id":1,"op":"status"}"#)?.ok == true)
        let start = Date()
        #expect(try connection.receive() == nil)
        #expect(Date().timeIntervalSince(start) < 8)
    }

    @Test(UnprivilegedUser.otherUIDs) func anotherUserIsRefused() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon()
        // Open the way for the test only: the daemon checked its directory when it started.
        for directory in [vault.root, vault.root + "/run", vault.root + "/run/vault"] { chmod(directory, 0o755) }
        chmod(vault.socketPath, 0o666)
        // A raw client: vaultctl itself would not connect to a directory that is not its user's
        // (LocalTrustTests), and this test is about vaultd's own check.
        let result = try vault.run(
            ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/socat", "-t", "5", "-", "UNIX-CONNECT:" + vault.socketPath],
            input: Array("{\"id\":1,\"op\":\"status\"}\n".utf8))
        #expect(result.stdout.isEmpty, "\(result.text)")
        #expect(vault.foregroundLog.contains("refused connection from pid"))
        #expect(vault.foregroundLog.contains("uid 65534"))
        // Closed again, since vaultctl refuses a socket directory others may enter.
        for directory in [vault.root, vault.root + "/run", vault.root + "/run/vault"] { chmod(directory, 0o700) }
        #expect(try vault.ctl("status").status == 0)
    }

    @Test func readinessIsNotifiedAfterTheSocketAnswersAndStoppingOnSIGTERM() throws {
        let vault = VaultHarness()
        let notifyPath = vault.root + "/notify.sock"
        let notify = try DatagramListener(path: notifyPath)
        defer { notify.close() }
        let daemon = try vault.startDaemon([], environment: ["NOTIFY_SOCKET": notifyPath], waitUntilServing: false)
        let ready = notify.receive(timeout: 5) ?? ""
        #expect(ready.contains("READY=1"))
        #expect(ready.contains("STATUS=serving on"))
        // The moment READY=1 arrives, the socket answers: no retry, no wait.
        let connection = try RawConnection(path: vault.socketPath)
        #expect(try connection.request(#"{"id":1,"op":"status"}"#)?.ok == true)
        connection.close()
        #expect(vault.terminate(daemon), "vaultd did not stop on SIGTERM")
        #expect(notify.receive(timeout: 5)?.contains("STOPPING=1") == true)
    }
}

/// Receives sd_notify datagrams, as systemd would.
final class DatagramListener {
    let fd: Int32

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result != 0 { throw Errno.current }
    }

    func receive(timeout: Double) -> String? {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
    }

    func close() { Glibc.close(fd) }
}
