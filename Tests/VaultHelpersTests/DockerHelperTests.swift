import Foundation
import Testing
@testable import VaultHelpers
import VaultClient
import VaultCore

/// docker-credential-vault without a daemon: the server URL it reads, the items it maps it to,
/// the JSON it reads and writes (`DockerCredentials`, `DockerAnswer`).
@Suite struct DockerHelperTests {
    func json(_ bytes: [UInt8]) throws -> [String: String] {
        #expect(bytes.last == UInt8(ascii: "\n"))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String])
    }

    @Test func theServerURLIsTheInputTrimmedOfASCIIWhiteSpace() throws {
        #expect(try DockerCredentials.serverURL(from: SecretBytes(utf8: " \t https://registry.example:5000 \r\n")) == "https://registry.example:5000")
        #expect(try DockerCredentials.serverURL(from: SecretBytes(utf8: "registry.example/v2/")) == "registry.example/v2/")
        #expect { try DockerCredentials.serverURL(from: SecretBytes(utf8: " \n\u{0B}")) } throws: { ($0 as? HelperFailure)?.message == "no credentials server URL" }
        #expect { try DockerCredentials.serverURL(from: SecretBytes([0xFF, 0x61])) } throws: { ($0 as? HelperFailure)?.message == "the server URL is not UTF-8 text" }
    }

    @Test func aServerURLMapsToVaultsItemAndDockerCredentialSecretservicesItems() throws {
        #expect(try DockerCredentials.service(serverURL: "https://index.docker.io/v1/") == "docker:https://index.docker.io/v1/")
        #expect { try DockerCredentials.service(serverURL: "https://r.example\n") } throws: {
            ($0 as? HelperFailure)?.message.hasPrefix("vault cannot keep this credential: the server URL must not contain control characters") == true
        }
        #expect { try DockerCredentials.service(serverURL: String(repeating: "r", count: 510)) } throws: { ($0 as? HelperFailure)?.message.contains("the limit is 512") == true }
        let query: [String: String?] = ["server": "https://r.example", "docker_cli": "1"]
        #expect(DockerCredentials.secretServiceQuery(serverURL: "https://r.example") == query)
        let attributes: [String: String?] = ["label": "Docker Credentials", "server": "https://r.example", "username": "u", "docker_cli": "1"]
        #expect(DockerCredentials.secretServiceAttributes(serverURL: "https://r.example", username: "u") == attributes)
        #expect(try DockerCredentials.lookup(serverURL: "https://r.example")
                == CredentialLookup(helper: .docker, service: "docker:https://r.example", foreignAttributes: query))
    }

    @Test func storeReadsOneJSONObjectOfStrings() throws {
        let parsed = try DockerCredentials(parsing: SecretBytes(utf8: #"{"ServerURL":"https://r.example","Username":"u","Secret":"s\"3","Other":[1]}"#))
        #expect(parsed.serverURL == "https://r.example" && parsed.username == "u" && parsed.secret == "s\"3")
        #expect(try DockerCredentials(parsing: SecretBytes(utf8: "{}")).serverURL == nil)
        for input in [#"{"ServerURL":5}"#, "[]", "", "\"text\""] {
            #expect(throws: HelperFailure.self, "\(input)") { try DockerCredentials(parsing: SecretBytes(utf8: input)) }
        }
    }

    @Test func getsAnswerEscapesEveryStringAndTheSecretStraightFromItsBytes() throws {
        let answer = DockerAnswer.credentials(serverURL: "https://r.example", username: "u\"\\", secret: SecretBytes(utf8: "line\none\u{1B}[2J\u{0}é"))
        #expect(String(decoding: answer, as: UTF8.self) == #"{"ServerURL":"https://r.example","Username":"u\"\\","Secret":"line\u000aone\u001b[2J\u0000é"}"# + "\n")
        #expect(try json(answer) == ["ServerURL": "https://r.example", "Username": "u\"\\", "Secret": "line\none\u{1B}[2J\u{0}é"])
    }

    @Test func listNamesEachServerOnceWithItsFirstUsername() throws {
        let answer = DockerAnswer.list([("https://a.example", "first"), ("https://b.example", "b\""), ("https://a.example", "second")])
        #expect(String(decoding: answer, as: UTF8.self) == #"{"https://a.example":"first","https://b.example":"b\""}"# + "\n")
        #expect(String(decoding: DockerAnswer.list([]), as: UTF8.self) == "{}\n")
    }

    @Test func whatVaultFoundBecomesTheUsernameAndSecret() throws {
        let metadata = ItemMetadata(service: "docker:https://r.example", account: "own-user", label: "L", comment: "", kind: .secret, created: Date(), modified: Date())
        let own = DockerAnswer.found(.item(VaultItem(metadata: metadata, secret: SecretBytes(utf8: "own"))))
        #expect(own?.username == "own-user" && own?.secret == SecretBytes(utf8: "own"))
        let item = ForeignItem(schemaName: "io.docker.Credentials", attributes: ["server": "https://r.example", "username": "theirs"], label: "", created: 0, modified: 0)
        let theirs = DockerAnswer.found(.foreign(item, secret: SecretBytes(utf8: "s")))
        #expect(theirs?.username == "theirs" && theirs?.secret == SecretBytes(utf8: "s"))
        let noUser = ForeignItem(schemaName: "io.docker.Credentials", attributes: ["server": "https://r.example"], label: "", created: 0, modified: 0)
        #expect(DockerAnswer.found(.foreign(noUser, secret: SecretBytes(utf8: "s")))?.username == "")
        #expect(DockerAnswer.found(.nothing) == nil && DockerAnswer.found(.ambiguous(amongOwnItems: true, count: 2)) == nil)
    }
}
