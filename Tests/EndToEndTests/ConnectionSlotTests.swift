import Foundation
import Synchronization
import Testing
import VaultCore

/// Connection slots cannot be held hostage: silent, trickling and half-written connections by the
/// thousand, a tiny open-file limit, and a full table of idle connections all leave room for a
/// fresh client, cost vaultd little CPU, and write a bounded number of log lines.
@Suite(.serialized) struct ConnectionSlotTests {
    /// utime + stime of `pid`, in clock ticks (/proc/PID/stat fields 14 and 15).
    static func cpuTicks(_ pid: Int32) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return -1 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return -1 }
        return user + system
    }

    /// CPU vaultd spends over `seconds` of the hostile connections doing what they do, in ticks.
    static func cpuTicks(of pid: Int32, over seconds: Double) -> Int {
        let before = cpuTicks(pid)
        usleep(UInt32(seconds * 1_000_000))
        return cpuTicks(pid) - before
    }

    /// Opens `count` connections; vaultd may refuse and close some at once, which is fine: each
    /// still costs it an accept.
    static func connect(_ count: Int, to path: String, sending prefix: String? = nil) throws -> [RawConnection] {
        try (0..<count).map { _ in
            let connection = try RawConnection(path: path)
            if let prefix { try? connection.send(prefix) }
            return connection
        }
    }

    /// Times a fresh `vaultctl get`, which must succeed.
    static func freshGet(_ vault: VaultHarness) throws -> Double {
        let start = Date()
        let result = try vault.ctl("get", "slots", "victim")
        let elapsed = Date().timeIntervalSince(start)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Array("still served".utf8))
        return elapsed
    }

    static let halfWritten = #"{"id":1,"op":"get","service":"slots","acc"#

    /// A child process holding `count` connections to `socket`, each sent `prefix` first; with
    /// `trickle`, one more byte on each every second. It holds them until its stdin closes. The
    /// test process itself holds none: thousands of descriptors in it would slow (and have
    /// crashed) Foundation's Process for every other test running meanwhile.
    static func holder(_ socket: String, count: Int, prefix: String = "", trickle: Bool = false) throws -> (Process, Pipe) {
        let script = """
            import socket, sys, threading, time
            path, count, prefix, trickle = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode(), sys.argv[4] == "1"
            held = []
            # Bounded: a vaultd that stopped accepting (its backlog full) makes the test fail, not hang.
            deadline = time.monotonic() + 30
            for _ in range(count):
                if time.monotonic() > deadline: break
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.settimeout(5)
                    s.connect(path)
                    s.settimeout(None)
                    if prefix: s.send(prefix)
                except OSError:
                    pass
                held.append(s)
            def drip():
                while True:
                    time.sleep(1)
                    for s in held:
                        try: s.send(b"a")
                        except OSError: pass
            if trickle: threading.Thread(target=drip, daemon=True).start()
            print("ready", flush=True)
            sys.stdin.read()
            """
        let process = Process(), stdin = Pipe(), stdout = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, socket, String(count), prefix, trickle ? "1" : "0"]
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        guard String(decoding: stdout.fileHandleForReading.readData(ofLength: 6), as: UTF8.self) == "ready\n" else {
            throw VaultError.internal("the connection holder did not start")
        }
        return (process, stdin)
    }

    @Test func thousandsOfSilentTricklingAndHalfWrittenConnectionsLeaveRoomForAFreshClient() throws {
        let vault = VaultHarness()
        let daemon = try vault.startDaemon()
        try vault.ctl("set", "slots", "victim", input: "still served")
        // One process per kind, 1,000 connections each.
        let holders = [
            try Self.holder(vault.socketPath, count: 1000),
            try Self.holder(vault.socketPath, count: 1000, prefix: Self.halfWritten),
            try Self.holder(vault.socketPath, count: 1000, prefix: "{", trickle: true),
        ]
        defer { for (process, stdin) in holders { try? stdin.fileHandleForWriting.close(); process.waitUntilExit() } }

        // The goal: with the flood holding, a fresh get gets in within 1 s. The best of two tries
        // is timed, so one scheduling hiccup of a loaded CI machine (two fuzzers run alongside)
        // does not count as a refusal; a client refused or queued behind the flood fails both.
        let elapsed = min(try Self.freshGet(vault), try Self.freshGet(vault))
        #expect(elapsed < 1, "a fresh get took \(elapsed) s; vaultd's log: \(vault.foregroundLog.suffix(2000))")
        let ticks = Self.cpuTicks(of: daemon.processIdentifier, over: 3)
        #expect(ticks >= 0 && ticks < 30, "vaultd used \(ticks) ticks of CPU in 3 s")
        // Still served once the flood has gone on a while; the best of two, as above (one single
        // try took 5 s once, in a full CI run beside the fuzzers).
        let later = min(try Self.freshGet(vault), try Self.freshGet(vault))
        #expect(later < 5, "a fresh get took \(later) s; vaultd's log: \(vault.foregroundLog.suffix(2000))")
        let lines = vault.foregroundLog.split(separator: "\n")
        #expect(lines.count < 40, "\(lines.count) log lines:\n\(lines.suffix(10).joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("refused connection from pid") && $0.contains("the limit for one process") })
    }

    /// Idle connections held by many processes (14 each, under the per-process cap of 16) fill
    /// every slot: a fresh client gets in by evicting the one idle the longest.
    @Test func silentConnectionsFromManyProcessesAreEvictedForAFreshClient() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--max-connections", "64"])
        try vault.ctl("set", "slots", "victim", input: "still served")
        let holders = try (0..<8).map { _ in try Self.holder(vault.socketPath, count: 14) }
        defer { for (process, stdin) in holders { try? stdin.fileHandleForWriting.close(); process.waitUntilExit() } }
        #expect(try Self.freshGet(vault) < 5)
        #expect(vault.foregroundLog.contains("to admit one from pid"), "\(vault.foregroundLog.suffix(800))")
    }

    @Test func aFullTableEvictsTheLongestIdleConnectionButNeverOneMidRequest() throws {
        let vault = VaultHarness()
        // 4 s of request deadline: the window in which a newcomer must be refused, wide enough
        // for a loaded machine (with 2 s the writers were sometimes cut before one was refused).
        _ = try vault.startDaemon(["--max-connections", "3", "--max-connections-per-process", "100", "--request-timeout", "4s"])
        try vault.ctl("set", "slots", "victim", input: "still served")
        // Three connections that each made a request and then went quiet: the table is full.
        let idle = try (0..<3).map { index in
            let connection = try RawConnection(path: vault.socketPath)
            #expect(try connection.request(#"{"id":\#(index),"op":"status"}"#)?.ok == true)
            usleep(50_000)
            return connection
        }
        defer { for connection in idle { connection.close() } }
        #expect(try Self.freshGet(vault) < 5)
        // The first to go quiet made room; the others still answer.
        #expect(try idle[0].receive() == nil)
        #expect(try idle[2].request(#"{"id":9,"op":"status"}"#)?.ok == true)

        // Three clients in the middle of writing a request: none is evicted, a newcomer is refused…
        let writing = try Self.connect(3, to: vault.socketPath, sending: Self.halfWritten)
        defer { for connection in writing { connection.close() } }
        let start = Date()
        var refused = false
        while Date().timeIntervalSince(start) < 10 {
            let newcomer = try RawConnection(path: vault.socketPath)
            defer { newcomer.close() }
            // A refused newcomer may find the socket closed before its request is written.
            try? newcomer.send(#"{"id":1,"op":"status"}"# + "\n")
            guard let answer = (try? newcomer.receive()) ?? nil else { continue }
            if answer.errorCode == "unavailable" { refused = true } else { break }
            usleep(100_000)
        }
        #expect(refused, "a newcomer was admitted while every slot was mid-request: \(vault.foregroundLog)")
        // …until their request deadline (4 s from their first byte) closes them with an error.
        let cut = try writing[0].receive()
        #expect(cut?.errorCode == "bad_request")
        #expect(((cut?["error"] as? [String: Any])?["message"] as? String)?.contains("did not arrive whole within 4 s") == true)
        #expect(try writing[0].receive() == nil)
        #expect(Date().timeIntervalSince(start) < 12)
        #expect(try Self.freshGet(vault) < 5)
    }

    /// A connection whose client read its answer and closed gives its slot to the next client:
    /// for a few microseconds it is neither idle nor gone (its answer still being sent, its end of
    /// input being read), and an admission then found nothing to evict and refused (13 to 45 of
    /// these 600 connections; CI once saw the test above admit a newcomer after such a refusal of
    /// one of its writers). Now such a connection is settling and the admission waits for it.
    @Test func aClosedConnectionNeverCausesARefusal() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--max-connections", "2", "--max-connections-per-process", "100"])
        var refusals = 0
        for round in 0..<150 {
            // Both slots used, one after the other, and given back; the next two come at once.
            for _ in 0..<2 {
                let connection = try RawConnection(path: vault.socketPath)
                if (try? connection.request(#"{"id":\#(round),"op":"status"}"#))??.ok != true { refusals += 1 }
                connection.close()
            }
            // (Each sends its request as it connects: one that sent nothing is idle, and may be
            // evicted to admit the other.)
            let next = try (0..<2).map { _ in
                let connection = try RawConnection(path: vault.socketPath)
                try? connection.send(#"{"id":1,"op":"status"}"# + "\n")
                return connection
            }
            defer { for connection in next { connection.close() } }
            for connection in next where (try? connection.receive())??.ok != true { refusals += 1 }
        }
        if refusals > 0 { print("DEBUGLOG", vault.foregroundLog.split(separator: "\n").filter { $0.contains("DEBUG") }) }
        #expect(refusals == 0, "\(refusals) of 600 connections refused although every earlier one had closed")
    }

    @Test func aTinyOpenFileLimitNeitherSpinsNorFloodsTheLog() throws {
        let vault = VaultHarness()
        let log = vault.root + "/vaultd-limited.log"
        // prlimit executes vaultd in its own place: the pid is vaultd's.
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        daemon.arguments = ["--nofile=64:64", VaultHarness.vaultd, "--log-file", log, "--max-connections-per-process", "1000", "--request-timeout", "2s"]
        daemon.environment = vault.environment
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { vault.terminate(daemon) }
        try vault.waitForSocket()
        try vault.ctl("set", "slots", "victim", input: "still served")

        // Far more silent connections than descriptors: the longest idle make room for new ones.
        var holders = [try Self.holder(vault.socketPath, count: 500)]
        defer { for (process, stdin) in holders { try? stdin.fileHandleForWriting.close(); process.waitUntilExit() } }
        #expect(try Self.freshGet(vault) < 5)
        // Half-written ones hold their slots until their deadline (2 s), then there is room again.
        holders.append(try Self.holder(vault.socketPath, count: 200, prefix: Self.halfWritten))
        let ticks = Self.cpuTicks(of: daemon.processIdentifier, over: 3)
        #expect(ticks >= 0 && ticks < 30, "vaultd used \(ticks) ticks of CPU in 3 s")
        let deadline = Date().addingTimeInterval(30)
        var result = try vault.ctl("get", "slots", "victim")
        while result.status != 0 && Date() < deadline {
            usleep(200_000)
            result = try vault.ctl("get", "slots", "victim")
        }
        #expect(result.status == 0 && result.stdout == Array("still served".utf8), "\(result.stderr)")
        #expect(daemon.isRunning)
        let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(lines.count < 60, "\(lines.count) log lines:\n\(lines.suffix(10).joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("--max-connections lowered from 128 to 8: the open-file limit is 64") })
    }
}
