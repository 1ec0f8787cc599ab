import Foundation
import Testing
import VaultCore

/// A crashing vaultd reports where it crashed, but prints no register contents and no memory
/// near them into its log (the Swift runtime's default for a non-interactive process does both).
@Suite struct CrashOutputTests {
    /// A register dump line: a register name, its value, then 16 bytes of the memory it points at.
    static var memoryDump: Regex<(Substring, Substring)> { #/(?m)^\s*[a-z0-9]{2,6} 0x[0-9a-f]{16}  ([0-9a-f]{2} ){15}[0-9a-f]{2}/# }

    @Test(arguments: [SIGSEGV, SIGILL, SIGABRT])
    func aCrashIsReportedWithoutRegistersOrMemory(signal: Int32) throws {
        let vault = VaultHarness()
        let daemon = try vault.startDaemon()
        let canary = "CRASH-CANARY-7f3e"
        try vault.ctl("set", "crash", "canary", input: canary)
        #expect(try vault.ctl("get", "crash", "canary").stdout == Array(canary.utf8))
        // The runtime's handler reports the crash; a signal sent with kill (unlike a real fault)
        // does not recur when the handler returns, so the report's last line is what to wait for.
        kill(daemon.processIdentifier, signal)
        defer { kill(daemon.processIdentifier, SIGKILL) }
        let deadline = Date().addingTimeInterval(60)
        while !vault.foregroundLog.contains("Backtrace took") && Date() < deadline { usleep(20_000) }
        let log = vault.foregroundLog
        #expect(log.contains("Program crashed"), "\(log)")
        #expect(log.contains(" in vaultd") || log.contains(" in libc") || log.contains(" in libdispatch"), "no symbolic frame: \(log)")
        #expect(!log.contains("Registers:"), "\(log)")
        #expect(log.firstMatch(of: Self.memoryDump) == nil, "\(log)")
        #expect(!log.contains("Images ("))
        #expect(!log.contains(canary))
    }

    @Test func vaultdRunsWithTheSafeSettingUnderItsOwnName() throws {
        let vault = VaultHarness()
        // Whatever the caller set, vaultd replaces it (by executing itself once more).
        let daemon = try vault.startDaemon([], environment: ["SWIFT_BACKTRACE": "enable=yes,registers=all,images=all"])
        let pid = daemon.processIdentifier
        let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
        let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        let setting = variables.first { $0.hasPrefix("SWIFT_BACKTRACE=") }
        #expect(setting?.contains("registers=none") == true, "\(String(describing: setting))")
        #expect(setting?.contains("registers=all") == false)
        let name = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
        #expect(name == "vaultd\n")
        #expect(try vault.ctl("status").status == 0)
    }
}
