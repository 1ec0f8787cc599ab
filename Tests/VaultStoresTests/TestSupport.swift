import Foundation
import VaultCore
import VaultStores
@_exported import VaultTestSupport

let testPassphrase = SecretBytes(utf8: "correct horse battery staple")

/// Cheap scrypt so the suite stays fast; one test covers the default cost.
func fastStore(_ path: String) -> EncryptedFileStore {
    EncryptedFileStore(path: path, options: .init(kdfParameters: .minimum, lockTimeout: 30))
}

func key(_ service: String, _ account: String) -> ItemKey {
    try! ItemKey(service: service, account: account)
}

func readBytes(_ path: String) -> [UInt8] {
    Array(FileManager.default.contents(atPath: path) ?? Data())
}

func writeBytes(_ bytes: [UInt8], to path: String) {
    FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600])
}

func mode(of path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
}

/// The test helper built beside this test bundle.
var storeToolPath: String { BuiltProducts.path("vault-store-tool") }

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a command to completion, feeding `input` on stdin.
func run(_ arguments: [String], environment: [String: String] = [:], input: [UInt8] = []) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    var env = ProcessInfo.processInfo.environment
    for (name, value) in environment { env[name] = value }
    process.environment = env
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}

/// Writes the test passphrase to a 0600 file for the helper's VAULT_PASSPHRASE_FILE.
func passphraseFile(in directory: TemporaryDirectory) -> String {
    let path = directory.file("passphrase")
    writeBytes(testPassphrase.unprotectedBytes + [10], to: path)
    return path
}
