#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// Asking the person at the controlling terminal, with echo off, for a secret.
public enum Terminal {
    /// True when this process has a controlling terminal it can prompt on.
    public static var isAvailable: Bool {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        if fd < 0 { return false }
        Glibc.close(fd)
        return true
    }

    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Prints `prompt` on /dev/tty and reads one line without echo. The line never passes through a
    /// String; the buffer it was read into is wiped. Returns nil at end of input (Ctrl-D).
    public static func readSecret(prompt: String, maxBytes: Int = 4096) throws -> SecretBytes? {
        let tty = try FileDescriptor.open("/dev/tty", O_RDWR | O_NOCTTY)
        defer { tty.close() }
        var saved = termios()
        let hasTermios = tcgetattr(tty.rawValue, &saved) == 0
        if hasTermios {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ICANON)
            _ = tcsetattr(tty.rawValue, TCSAFLUSH, &quiet)
        }
        defer {
            if hasTermios { _ = tcsetattr(tty.rawValue, TCSAFLUSH, &saved) }
            try? tty.writeAll(Array("\n".utf8))
        }
        try tty.writeAll(Array(prompt.utf8))
        return try SecretBytes.readLine(from: tty, maxBytes: maxBytes)
    }
}
