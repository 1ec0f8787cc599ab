#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultSystem

/// Where the file store's passphrase comes from, in the order they are tried:
/// `VAULT_PASSPHRASE_FILE`, the systemd credential `$CREDENTIALS_DIRECTORY/vault-passphrase`,
/// then `VAULT_PASSPHRASE` (the weakest: the environment is visible to the same user's tools),
/// then `passphrase-file` in vault's configuration file (which the environment overrides).
/// None of them needs a person, so vaultd can unlock itself at start with any of them; a person
/// types the passphrase into vaultctl instead, which sends it with `unlock`.
public enum PassphraseSource: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case systemdCredential(String)
    case environment
    /// `passphrase-file` in the configuration file `config`.
    case configured(path: String, config: String)

    public static let credentialName = "vault-passphrase"
    static let maxBytes = 4096

    /// The first source the environment provides, or nil when none does
    /// (no file, no credential, no variable).
    public static func resolve(environment: [String: String]) -> PassphraseSource? {
        if let file = environment["VAULT_PASSPHRASE_FILE"], !file.isEmpty { return .file(file) }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory + "/" + credentialName
            if (try? FileStatus.of(path)) != nil { return .systemdCredential(path) }
        }
        if environment["VAULT_PASSPHRASE"] != nil { return .environment }
        return nil
    }

    /// Reads the passphrase. An empty passphrase is refused.
    public func read(environment: [String: String]) throws -> SecretBytes {
        let passphrase: SecretBytes
        switch self {
        case .file(let path), .configured(let path, _):
            passphrase = try PassphraseSource.readFile(path, checkPermissions: true)
        case .systemdCredential(let path):
            // systemd decrypts credentials into a directory only the service can read.
            passphrase = try PassphraseSource.readFile(path, checkPermissions: false)
        case .environment:
            passphrase = SecretBytes(utf8: PassphraseSource.strippingNewline(environment["VAULT_PASSPHRASE"] ?? ""))
        }
        if passphrase.isEmpty { throw VaultError.invalidInput("the passphrase from \(self) is empty; an empty passphrase is refused") }
        return passphrase
    }

    /// The file the passphrase is read from; nil for the environment variable.
    public var filePath: String? {
        switch self {
        case .file(let path), .systemdCredential(let path), .configured(let path, _): path
        case .environment: nil
        }
    }

    public var description: String {
        switch self {
        case .file(let path): "VAULT_PASSPHRASE_FILE (\(path))"
        case .systemdCredential(let path): "systemd credential (\(path))"
        case .environment: "VAULT_PASSPHRASE"
        case .configured(let path, let config): "passphrase-file in \(config) (\(path))"
        }
    }

    /// Reads a passphrase file, dropping one trailing newline. A file others can read is refused,
    /// as ssh refuses a private key with loose permissions.
    static func readFile(_ path: String, checkPermissions: Bool) throws -> SecretBytes {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, O_RDONLY) } catch let error as Errno {
            let fix = error == .noSuchFile
                ? "create it (mode 0600) with the passphrase on one line, or run 'vaultctl unlock'"
                : "check its permissions (it must be yours, mode 0600), or run 'vaultctl unlock'"
            throw VaultError.passphraseUnavailable("cannot read the passphrase file \(path): \(error); \(fix)")
        }
        return try fd.closeAfter {
            let status = try fd.status()
            if checkPermissions && status.owner != FileSystem.currentUserID {
                throw VaultError.insecurePermissions(
                    path: path, detail: "the passphrase file belongs to uid \(status.owner), not to you (uid \(FileSystem.currentUserID)); make your own copy, mode 0600")
            }
            if checkPermissions && status.permissions & 0o077 != 0 {
                throw VaultError.insecurePermissions(
                    path: path, detail: "the passphrase file is readable by others (mode \(String(status.permissions, radix: 8))); run 'chmod 600 \(path)'")
            }
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: maxBytes + 1, alignment: 1)
            defer {
                SecretBytes.wipe(scratch)
                scratch.deallocate()
            }
            var count = 0
            while count <= maxBytes {
                let got = try fd.read(into: UnsafeMutableRawBufferPointer(rebasing: scratch[count...]))
                if got == 0 { break }
                count += got
            }
            if count > maxBytes { throw VaultError.invalidInput("passphrase file \(path) is over \(maxBytes) bytes") }
            if count > 0 && scratch[count - 1] == UInt8(ascii: "\n") { count -= 1 }
            if count > 0 && scratch[count - 1] == UInt8(ascii: "\r") { count -= 1 }
            return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        }
    }

    static func strippingNewline(_ value: String) -> String {
        value.hasSuffix("\n") ? String(value.dropLast()) : value
    }
}
