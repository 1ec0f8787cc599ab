import Foundation
import Testing
import VaultClient
import VaultCore
import VaultSystem
import VaultTestSupport

/// `VaultConnection.resolveCredential` reading each answer vaultd can give, from a stand-in
/// vaultd that answers one canned line per connection.
@Suite struct CredentialResolutionClientTests {
    /// Listens on a private socket and answers each request with `answer`, until released.
    final class CannedVaultd: @unchecked Sendable {
        let directory = TemporaryDirectory(prefix: "vault-canned")
        let listener: FileDescriptor
        let answer: String
        var socket: String { directory.file("run/vault.sock") }

        init(answer: String) throws {
            self.answer = answer
            try FileManager.default.createDirectory(atPath: directory.file("run"), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            listener = try UnixSocket.stream()
            try UnixSocket.bind(listener, path: directory.file("run/vault.sock"))
            try UnixSocket.listen(listener, backlog: 4)
            Thread { [self] in serve() }.start()
        }

        deinit { shutdown(listener.rawValue, Int32(SHUT_RDWR)); listener.close() }

        private func serve() {
            while let client = try? UnixSocket.accept(listener) {
                var byte: UInt8 = 0
                while read(client.rawValue, &byte, 1) == 1 && byte != UInt8(ascii: "\n") {}
                try? client.writeAll(Array((answer + "\n").utf8))
                client.close()
            }
        }

        func resolve(_ lookup: CredentialLookup = CredentialLookup(helper: .git, service: "git:https://h.example")) throws(VaultClientError) -> ResolvedCredential {
            try VaultConnection(socketPath: socket, autostart: false, environment: [:], timeout: 5).resolveCredential(lookup)
        }
    }

    static let item = #""item":{"account":"alice","comment":"","created":"2026-01-01T00:00:00.000Z","kind":"secret","label":"L","modified":"2026-01-01T00:00:00.000Z","secret":"pw","service":"git:https://h.example""#

    func answer(_ result: String) -> String { #"{"id":1,"ok":true,"result":{"# + result + "}}" }

    @Test func eachThingFoundIsReadIntoItsCase() throws {
        guard case .item(let item) = try CannedVaultd(answer: answer(Self.item + #"},"resolution":{"found":"item"}"#)).resolve() else {
            Issue.record("not an item")
            return
        }
        #expect(item.metadata.account == "alice" && item.secret == SecretBytes(utf8: "pw"))

        let foreign = #""item":{"account":"carol","attributes":{"server":"h.example","user":"carol"},"comment":"","created":"2026-01-01T00:00:00.000Z","kind":"secret","label":"Git","modified":"2026-01-01T00:00:00.000Z","secret":"theirs","service":"org.git.Password"},"resolution":{"found":"foreign"}"#
        guard case .foreign(let theirs, let secret) = try CannedVaultd(answer: answer(foreign)).resolve() else {
            Issue.record("not the other helper's item")
            return
        }
        #expect(theirs.schemaName == "org.git.Password" && theirs.attributes["user"] == "carol" && secret == SecretBytes(utf8: "theirs"))

        let token = #""resolution":{"found":"token"},"token":{"access_token":"tok","account":"me","token_type":"Bearer"}"#
        guard case .token(let access) = try CannedVaultd(answer: answer(token)).resolve() else {
            Issue.record("not a token")
            return
        }
        #expect(access.accessToken == "tok" && access.account == "me" && access.expiresAt == nil)

        guard case .ambiguous(let own, let count) = try CannedVaultd(answer: answer(#""resolution":{"among":"foreign","count":3,"found":"ambiguous"}"#)).resolve() else {
            Issue.record("not ambiguous")
            return
        }
        #expect(!own && count == 3)
        guard case .nothing = try CannedVaultd(answer: answer(#""resolution":{"found":"none"}"#)).resolve() else {
            Issue.record("not nothing")
            return
        }
    }

    @Test func anAnswerThatDoesNotHoldTogetherIsRefused() throws {
        for result in [#""resolution":{"found":"item"}"#, #""resolution":{"found":"later"}"#, "", #""resolution":{"found":"ambiguous","count":1,"among":"item"}"#,
                       #""resolution":{"found":"token"}"#] {
            #expect("\(result)") { try CannedVaultd(answer: answer(result)).resolve() } throws: { ($0 as? VaultClientError)?.code == .internal }
        }
    }

    @Test func aVaultdTooOldToKnowTheRequestIsNamedWithWhatToDo() throws {
        let old = try CannedVaultd(answer: #"{"error":{"code":"bad_request","message":"unknown op 'resolve_credential'; known ops: status, get"},"id":1,"ok":false}"#)
        #expect { try old.resolve() } throws: { error in
            let error = error as? VaultClientError
            return error?.code == .badRequest && error?.message.contains("is older than this program") == true && error?.message.contains("systemctl --user restart vaultd") == true
        }
        // Any other refusal is vaultd's own.
        let other = try CannedVaultd(answer: #"{"error":{"code":"bad_request","message":"unknown helper 'x'"},"id":1,"ok":false}"#)
        #expect { try other.resolve() } throws: { ($0 as? VaultClientError)?.message == "unknown helper 'x'" }
    }
}
