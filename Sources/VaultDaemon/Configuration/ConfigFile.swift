#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultStores
import VaultSystem

/// vault's configuration file, `$XDG_CONFIG_HOME/vault/config` (else `~/.config/vault/config`):
/// the choices that must survive a restart, read by vaultd however it is started (autostarted by
/// vaultctl, by systemd, by hand). The environment and vaultd's flags override each setting.
///
/// ```
/// # vault's settings (docs: docs/configuration.md, "Configuration file")
/// backend = file                              # auto, file or secret-service
/// passphrase-file = ~/.config/vault/passphrase
/// file = ~/.local/share/vault/vault.db        # the encrypted file store
/// ```
///
/// One `name = value` per line (LF or CRLF line ends); a `#` at the start of a line or after a
/// blank starts a comment to the end of the line (so a value cannot hold ` #`); blank lines are
/// ignored; a value starting with `~/` is under `$HOME`; paths must be absolute otherwise. An unknown setting, a
/// setting given twice, a malformed line, or a file others may write is an error that stops
/// vaultd, naming the file and line: a configuration is never half-applied or guessed at.
public struct ConfigFile: Sendable, Equatable {
    public static let maxBytes = 64 * 1024
    /// What surrounds a name or a value on a line: spaces, tabs, and a CR from a CRLF file.
    static let lineBlanks: Set<Unicode.Scalar> = [" ", "\t", "\r"]

    public enum Setting: String, Sendable, CaseIterable {
        case backend
        case passphraseFile = "passphrase-file"
        case file
    }

    public let path: String
    public private(set) var values: [Setting: String] = [:]
    /// The lines as read, kept so that `updating` changes one setting and nothing else.
    private var lines: [String] = []

    /// Where the file is for this environment; nil when neither XDG_CONFIG_HOME nor HOME is an
    /// absolute path.
    public static func path(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/vault/config" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.config/vault/config"
    }

    /// The file for `environment`, or nil when there is none.
    public static func load(environment: [String: String]) throws(Problem) -> ConfigFile? {
        guard let path = path(environment: environment) else { return nil }
        return try load(path, home: environment["HOME"])
    }

    static func load(_ path: String, home: String?) throws(Problem) -> ConfigFile? {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK)
        } catch let error as Errno where error == .noSuchFile {
            return nil
        } catch {
            throw Problem(path: path, line: nil, "cannot be read: \(error)")
        }
        defer { fd.close() }
        let bytes: [UInt8]?
        do {
            // Followed if it is a link (dotfile managers link it), but the file itself must be
            // the user's and writable by nobody else: it says where the passphrase is read from.
            let status = try fd.status()
            guard status.isRegularFile else { throw Problem(path: path, line: nil, "is not a regular file") }
            guard status.owner == FileSystem.currentUserID, status.permissions & 0o022 == 0 else {
                throw Problem(path: path, line: nil, "is writable by others or not yours (mode \(String(status.permissions, radix: 8)), owner uid \(status.owner)); run 'chmod 600 \(path)'")
            }
            bytes = try fd.readAll(limit: maxBytes)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(path: path, line: nil, "cannot be read: \(error)")
        }
        guard let bytes else { throw Problem(path: path, line: nil, "is over \(maxBytes / 1024) KiB") }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Problem(path: path, line: nil, "is not UTF-8 text") }
        return try ConfigFile(path: path, text: text, home: home)
    }

    /// Parses `text`; `home` expands `~/`.
    public init(path: String, text: String, home: String?) throws(Problem) {
        self.path = path
        lines = text.lines.map(String.init)
        for (index, line) in lines.enumerated() {
            guard let (setting, value) = try Self.parse(line, path: path, number: index + 1, home: home) else { continue }
            guard values[setting] == nil else { throw Problem(path: path, line: index + 1, "'\(setting.rawValue)' is set twice") }
            values[setting] = value
        }
    }

    public subscript(_ setting: Setting) -> String? { values[setting] }

    /// The file's text with `setting` set to `value`: its line replaced in place, or appended.
    /// Comments, order and the other settings are kept.
    /// A value the file cannot hold as written (a comment or control character in it, blanks
    /// around it) is a Problem, not a line read back as something else.
    public func updating(_ setting: Setting, to value: String) throws(Problem) -> String {
        var lines = self.lines
        let line = "\(setting.rawValue) = \(value)"
        guard value.trimming(Self.lineBlanks) == value, Self.withoutComment(line) == line,
              try Self.parse(line, path: path, number: 0, home: "/")?.0 == setting else {
            throw Problem(path: path, line: nil, "cannot hold '\(setting.rawValue)' = '\(value.replacingControlCharacters())'")
        }
        if let index = lines.firstIndex(where: { (try? Self.parse($0, path: path, number: 0, home: "/"))??.0 == setting }) {
            lines[index] = line
        } else {
            lines.append(line)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The new text of the file at `path` with `setting` = `value` (a new file when none exists).
    public static func text(of path: String, with setting: Setting, _ value: String, home: String?) throws(Problem) -> String {
        if let existing = try load(path, home: home) { return try existing.updating(setting, to: value) }
        return try ConfigFile(path: path, text: "# vault's settings: see docs/configuration.md, \"Configuration file\"\n", home: home)
            .updating(setting, to: value)
    }

    private static func parse(_ line: String, path: String, number: Int, home: String?) throws(Problem) -> (Setting, String)? {
        let trimmed = withoutComment(line).trimming(Self.lineBlanks)
        if trimmed.isEmpty { return nil }
        guard let equals = trimmed.firstIndex(of: "=") else {
            throw Problem(path: path, line: number, "expected 'name = value', got '\(String(trimmed.prefix(80)).replacingControlCharacters())'")
        }
        let name = String(trimmed[..<equals]).trimming(Self.lineBlanks)
        let value = String(trimmed[trimmed.index(after: equals)...]).trimming(Self.lineBlanks)
        guard let setting = Setting(rawValue: name) else {
            throw Problem(path: path, line: number, "unknown setting '\(String(name.prefix(80)).replacingControlCharacters())' (known: \(Setting.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard !value.isEmpty else { throw Problem(path: path, line: number, "'\(name)' has no value") }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw Problem(path: path, line: number, "'\(name)' has a control character in its value")
        }
        switch setting {
        case .backend:
            guard StoreSelector.Preference(rawValue: value) != nil else {
                throw Problem(path: path, line: number, "backend must be auto, file or secret-service, got '\(String(value.prefix(80)))'")
            }
            return (setting, value)
        case .passphraseFile, .file:
            if value.hasPrefix("~/") {
                guard let home, home.hasPrefix("/") else { throw Problem(path: path, line: number, "'\(name)' starts with ~/ but HOME is not set") }
                return (setting, home + value.dropFirst())
            }
            guard value.hasPrefix("/") else {
                throw Problem(path: path, line: number, "'\(name)' must be an absolute path (or start with ~/), got '\(String(value.prefix(80)))'")
            }
            return (setting, value)
        }
    }

    /// `line` up to its comment: a `#` that starts the line or follows a blank.
    static func withoutComment(_ line: String) -> String {
        var previous: Unicode.Scalar = " "
        for index in line.unicodeScalars.indices {
            let scalar = line.unicodeScalars[index]
            if scalar == "#", lineBlanks.contains(previous) { return String(line.unicodeScalars[..<index]) }
            previous = scalar
        }
        return line
    }

    /// A configuration file vaultd will not start with.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let line: Int?
        public let message: String

        init(path: String, line: Int?, _ message: String) {
            self.path = path
            self.line = line
            self.message = message
        }

        public var description: String {
            "the configuration file " + (line.map { "\(path), line \($0): \(message)" } ?? "\(path) \(message)")
        }
    }
}
