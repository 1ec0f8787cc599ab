import Foundation
import Testing
import VaultCore
import VaultDaemon
import VaultStores
import VaultTestSupport

/// vault's configuration file: what it sets, what overrides it, and every way it can be wrong
/// (each one stops vaultd with the file and line named; nothing is half-applied).
@Suite struct ConfigFileTests {
    let directory = TemporaryDirectory()
    var home: String { directory.path }
    var environment: [String: String] { ["HOME": home, "XDG_RUNTIME_DIR": directory.file("run")] }
    var configPath: String { home + "/.config/vault/config" }

    func write(_ text: String, mode: Int = 0o600) throws {
        try FileManager.default.createDirectory(atPath: home + "/.config/vault", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: configPath, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
        chmod(configPath, mode_t(mode))
    }

    func configuration(_ arguments: [String] = [], _ extra: [String: String] = [:]) throws -> DaemonConfiguration {
        guard case .run(let configuration) = try DaemonConfiguration.parse(arguments: arguments, environment: environment.merging(extra) { $1 }) else {
            throw VaultError.internal("not a run")
        }
        return configuration
    }

    func problem(_ extra: [String: String] = [:]) -> String? {
        do {
            _ = try DaemonConfiguration.parse(arguments: [], environment: environment.merging(extra) { $1 })
            return nil
        } catch {
            #expect(error.exitStatus == 1)
            return error.message
        }
    }

    @Test func settingsApplyAndTheEnvironmentAndFlagsOverrideThem() throws {
        try write("""
            # a comment
              backend = file\t
            passphrase-file = ~/.config/vault/passphrase

            file=/srv/vault/v.db
            """)
        let configured = try configuration()
        #expect(configured.backend == .file && configured.backendOrigin == "backend in \(configPath)")
        #expect(configured.passphraseSource == .configured(path: home + "/.config/vault/passphrase", config: configPath))
        #expect(configured.vaultFilePath == "/srv/vault/v.db")
        #expect(configured.configFilePath == configPath)

        let overridden = try configuration([], ["VAULT_BACKEND": "secret-service", "VAULT_PASSPHRASE_FILE": "/etc/p", "VAULT_FILE": "/x/y.db"])
        #expect(overridden.backend == .secretService && overridden.backendOrigin == "VAULT_BACKEND")
        #expect(overridden.passphraseSource == .file("/etc/p"))
        #expect(overridden.vaultFilePath == "/x/y.db")
        #expect(try configuration(["--backend", "auto"], ["VAULT_BACKEND": "secret-service"]).backendOrigin == "--backend")
        // An empty variable is unset, not a value.
        #expect(try configuration([], ["VAULT_BACKEND": ""]).backend == .file)
        // XDG_CONFIG_HOME moves the file.
        #expect(try configuration([], ["XDG_CONFIG_HOME": directory.file("elsewhere")]).backend == .auto)
    }

    @Test func aBrokenConfigurationStopsVaultdNamingFileAndLine() throws {
        let cases: [(String, String)] = [
            ("backend = tape\n", "line 1: backend must be auto, file or secret-service"),
            ("# ok\nbakend = file\n", "line 2: unknown setting 'bakend' (known: backend, passphrase-file, file)"),
            ("backend\n", "line 1: expected 'name = value'"),
            ("backend =\n", "line 1: 'backend' has no value"),
            ("backend = file\nbackend = auto\n", "line 2: 'backend' is set twice"),
            ("passphrase-file = relative/p\n", "line 1: 'passphrase-file' must be an absolute path"),
            ("file = /a\u{1B}[2J\n", "line 1: 'file' has a control character"),
        ]
        for (text, expected) in cases {
            try write(text)
            let message = try #require(problem())
            #expect(message.contains(configPath), "\(message)")
            #expect(message.contains(expected), "\(message)")
            #expect(!message.contains("\u{1B}"))
        }
        try write("backend = file\n", mode: 0o666)
        #expect(problem()?.contains("is writable by others or not yours (mode 666") == true)
        #expect(problem()?.contains("chmod 600 \(configPath)") == true)
        try write(String(repeating: "# x\n", count: 20_000))
        #expect(problem()?.contains("is over 64 KiB") == true)
        try FileManager.default.removeItem(atPath: configPath)
        try FileManager.default.createDirectory(atPath: configPath, withIntermediateDirectories: true)
        #expect(problem()?.contains("is not a regular file") == true)
    }

    @Test func updatingChangesOneSettingAndKeepsTheRest() throws {
        try write("# mine\npassphrase-file = /p\nbackend = auto  \n")
        let text = try ConfigFile.text(of: configPath, with: .backend, "file", home: home)
        #expect(text == "# mine\npassphrase-file = /p\nbackend = file\n")
        let fresh = try ConfigFile.text(of: directory.file("none"), with: .backend, "secret-service", home: home)
        #expect(fresh.hasSuffix("\nbackend = secret-service\n"))
        // What is written parses back.
        #expect(try ConfigFile(path: "x", text: fresh, home: home)[.backend] == "secret-service")
        // A setting written with ~/ is found and replaced, not appended a second time.
        let tilde = try ConfigFile(path: "x", text: "passphrase-file = ~/p\n", home: home).updating(.passphraseFile, to: "/q")
        #expect(tilde == "passphrase-file = /q\n")
    }

    /// A file with CRLF line ends (or a stray CR) reads exactly like its LF twin: `"\r\n"` is one
    /// Swift Character, so splitting at "\n" once read such a file as one comment line and
    /// silently ignored every setting after it.
    @Test func crlfLineEndsReadLikeTheirLFTwin() throws {
        let lf = "# vault settings\nbackend = file\npassphrase-file = /p\n\nfile = /srv/v.db\n"
        let twin = try ConfigFile(path: "x", text: lf, home: home)
        for text in [lf.replacingOccurrences(of: "\n", with: "\r\n"), lf.replacingOccurrences(of: "file = /srv/v.db\n", with: "file = /srv/v.db\r"),
                     String(lf.dropLast())] {
            let read = try ConfigFile(path: "x", text: text, home: home)
            #expect(read.values == twin.values, "\(text.debugDescription)")
            // What `updating` writes parses to the same settings plus the change.
            let updated = try ConfigFile(path: "x", text: try read.updating(.backend, to: "auto"), home: home)
            var expected = twin.values
            expected[.backend] = "auto"
            #expect(updated.values == expected)
        }
        try write("# leading comment\r\nbackend = file\r\n")
        #expect(try configuration().backend == .file)
    }

    /// `#` after a blank starts a comment to the end of the line, so the documented example in
    /// docs/configuration.md (which explains each setting beside it) is a working file; a `#`
    /// inside a value stays.
    @Test func trailingCommentsAndTheDocumentedExample() throws {
        let guide = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/configuration.md").path, encoding: .utf8)
        let section = try #require(guide.range(of: "## Configuration file"))
        let rest = guide[section.upperBound...]
        let open = try #require(rest.range(of: "```\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        let example = String(rest[open.upperBound..<close.lowerBound])
        let file = try ConfigFile(path: "x", text: example, home: home)
        #expect(file[.backend] == "file")
        #expect(file[.passphraseFile] == home + "/.config/vault/passphrase")
        #expect(file[.file] == home + "/.local/share/vault/vault.db")

        let read = try ConfigFile(path: "x", text: "file = /a/b#c\t# the store\npassphrase-file = /p #\n", home: home)
        #expect(read[.file] == "/a/b#c" && read[.passphraseFile] == "/p")
        #expect(throws: ConfigFile.Problem.self) { try ConfigFile(path: "x", text: "backend = # none\n", home: home) }
        #expect(throws: ConfigFile.Problem.self) { try read.updating(.file, to: "/a #b") }
    }
}
