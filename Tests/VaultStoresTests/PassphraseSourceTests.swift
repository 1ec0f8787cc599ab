import Foundation
import Testing
import VaultCore
import VaultStores

@Suite struct PassphraseSourceTests {
    @Test func sourcesAreTriedInTheDocumentedOrder() throws {
        let directory = TemporaryDirectory()
        let credentials = directory.file("creds")
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        writeBytes(Array("from-credential".utf8), to: credentials + "/vault-passphrase")
        let file = directory.file("pass")
        writeBytes(Array("from-file\n".utf8), to: file)

        var environment = ["VAULT_PASSPHRASE": "from-env", "CREDENTIALS_DIRECTORY": credentials, "VAULT_PASSPHRASE_FILE": file]
        #expect(PassphraseSource.resolve(environment: environment) == .file(file))
        #expect(try PassphraseSource.file(file).read(environment: environment) == SecretBytes(utf8: "from-file"))
        environment["VAULT_PASSPHRASE_FILE"] = nil
        #expect(PassphraseSource.resolve(environment: environment) == .systemdCredential(credentials + "/vault-passphrase"))
        #expect(try PassphraseSource.resolve(environment: environment)!.read(environment: environment) == SecretBytes(utf8: "from-credential"))
        environment["CREDENTIALS_DIRECTORY"] = nil
        #expect(PassphraseSource.resolve(environment: environment) == .environment)
        #expect(try PassphraseSource.environment.read(environment: environment) == SecretBytes(utf8: "from-env"))
        environment["VAULT_PASSPHRASE"] = nil
        #expect(PassphraseSource.resolve(environment: environment) == nil)
    }

    @Test func onlyOneTrailingNewlineIsStripped() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("pass")
        writeBytes(Array("  spaced pass \n\n".utf8), to: file)
        #expect(try PassphraseSource.file(file).read(environment: [:]) == SecretBytes(utf8: "  spaced pass \n"))
    }

    @Test func emptyMissingAndExposedFilesAreErrors() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("pass")
        writeBytes(Array("\n".utf8), to: file)
        #expect { try PassphraseSource.file(file).read(environment: [:]) } throws: { "\($0)".contains("empty") }
        #expect { try PassphraseSource.file(directory.file("missing")).read(environment: [:]) } throws: {
            ($0 as? VaultError)?.code == .passphraseRequired && "\($0)".contains("missing")
        }
        writeBytes(Array("secret".utf8), to: file)
        chmod(file, 0o644)
        #expect { try PassphraseSource.file(file).read(environment: [:]) } throws: { "\($0)".contains("chmod 600") }
        #expect { try PassphraseSource.environment.read(environment: ["VAULT_PASSPHRASE": ""]) } throws: { "\($0)".contains("empty") }
    }
}
