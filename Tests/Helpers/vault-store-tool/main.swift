// Test driver for the encrypted file store, run as a separate process by VaultStoresTests:
// crash safety (killed mid-write), concurrent writers, full disks, unwritable directories.
// Not installed. The passphrase comes from the usual non-interactive sources.
#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto
import VaultStores
import VaultSystem

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { _ = write(1, $0.baseAddress, $0.count) }
}

func fail(_ error: Error) -> Never {
    let code = (error as? VaultError)?.code.rawValue ?? "other"
    let line = "error \(code): \(error)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

let environment = ProcessEnvironment.current

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    say("usage: vault-store-tool (set|set-session|get|write-loop|add-range|fill|bulk-add|compact-loop|dump) PATH ...")
    exit(2)
}
let command = arguments[0]
// VAULT_STORE_TOOL_COMPACTION_FLOOR: compact once the journal passes this many bytes (to crash mid-compaction often).
let compactionFloor = environment["VAULT_STORE_TOOL_COMPACTION_FLOOR"].flatMap { Int($0) } ?? 64 * 1024
let store = EncryptedFileStore(path: arguments[1], options: .init(kdfParameters: .minimum, lockTimeout: 30, compactionFloor: compactionFloor))

do {
    guard let source = PassphraseSource.resolve(environment: environment) else {
        throw VaultError.passphraseUnavailable("set VAULT_PASSPHRASE_FILE")
    }
    try store.unlock(passphrase: try source.read(environment: environment))
    switch command {
    case "set":
        let secret = try SecretBytes.readLine(from: FileDescriptor(rawValue: 0), maxBytes: ItemLimits.maxSecretBytes) ?? .empty
        try store.set(try ItemKey(service: arguments[2], account: arguments[3]), secret: secret, changes: ItemChanges())
    case "set-session":
        // A sign-in session's record exactly as given (JSON on one line), as no vault command would write it.
        let secret = try SecretBytes.readLine(from: FileDescriptor(rawValue: 0), maxBytes: ItemLimits.maxSecretBytes) ?? .empty
        try store.set(try ItemKey(service: arguments[2], account: arguments[3]), secret: secret, changes: ItemChanges(kind: .session))
    case "get":
        let item = try store.get(try ItemKey(service: arguments[2], account: arguments[3]))
        try FileDescriptor(rawValue: 1).writeAll(item.secret.unprotectedBytes)
    case "write-loop":
        // Overwrites a growing set of items; "ok N" means the write of item N returned success.
        let start = Int(arguments[2])!
        for index in start..<start + Int(arguments[3])! {
            let key = try ItemKey(service: "crash", account: "item-\(index % 25)")
            try store.set(key, secret: SecretBytes(utf8: "value-\(index)"), changes: ItemChanges(comment: "\(index)"))
            say("ok \(index)")
        }
    case "add-range":
        for index in 0..<Int(arguments[3])! {
            try store.add(try ItemKey(service: "race", account: "\(arguments[2])-\(index)"), secret: SecretBytes(utf8: "\(arguments[2])-\(index)"), changes: ItemChanges())
            say("ok \(index)")
        }
    case "fill":
        for index in 0..<10_000 {
            let secret = try SecretBytes(count: 48 * 1024) { try SecureRandom.fill($0) }
            try store.set(try ItemKey(service: "fill", account: "item-\(index)"), secret: secret, changes: ItemChanges())
            say("ok \(index)")
        }
    case "bulk-add":
        // COUNT items "SERVICE"/"item-N" in one write, each with a short secret: large vaults fast.
        let count = Int(arguments[3])!
        try store.add(try (0..<count).map { index in
            (key: try ItemKey(service: arguments[2], account: "item-\(index)"), secret: SecretBytes(utf8: "secret-\(index)"), changes: ItemChanges())
        })
    case "compact-loop":
        // Compacts COUNT times (a passphrase change to the same passphrase, re-keying every other
        // time): "ok N" means compaction N returned success.
        let passphrase = try source.read(environment: environment)
        for index in 0..<Int(arguments[2])! {
            try store.changePassphrase(current: passphrase, new: passphrase, rekey: index % 2 == 0)
            say("ok \(index)")
        }
    case "dump":
        for info in try store.list(service: nil) {
            let secret = try store.get(info.key).secret.unprotectedBytes.map { String(format2: $0) }.joined()
            say("\(info.key.service)\t\(info.key.account)\t\(info.comment)\t\(secret)")
        }
    default:
        say("unknown command \(command)")
        exit(2)
    }
} catch {
    fail(error)
}

extension String {
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
