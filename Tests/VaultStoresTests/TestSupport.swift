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

/// Runs a command to completion, feeding `input` on stdin, with this process's environment plus `environment`.
func run(_ arguments: [String], environment: [String: String] = [:], input: [UInt8] = []) throws -> ProcessRunner.Result {
    try ProcessRunner.run(arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, input: input)
}

/// Writes the test passphrase to a 0600 file for the helper's VAULT_PASSPHRASE_FILE.
func passphraseFile(in directory: TemporaryDirectory) -> String {
    let path = directory.file("passphrase")
    writeBytes(testPassphrase.unprotectedBytes + [10], to: path)
    return path
}

/// Runs scripts/decrypt-vault.py (the independent decryptor) with `arguments`, under the test venv's Python.
func runDecryptor(_ arguments: [String]) throws -> ProcessRunner.Result {
    let root = IndependentDecryptorTests.packageRoot
    return try run([root + "/.venv/bin/python", root + "/scripts/decrypt-vault.py"] + arguments)
}

/// A new vault (`vault.db`) in `directory`, unlocked.
func newVault(_ directory: TemporaryDirectory) throws -> (path: String, store: EncryptedFileStore) {
    let path = directory.file("vault.db")
    let store = fastStore(path)
    try store.unlock(passphrase: testPassphrase)
    return (path, store)
}
