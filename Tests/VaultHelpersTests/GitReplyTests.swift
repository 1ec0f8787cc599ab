import Foundation
import Testing
@testable import VaultHelpers
import VaultClient
import VaultCore

/// What `get` prints for each answer vaultd can give (`GitReply`, `GitAnswer`).
@Suite struct GitReplyTests {
    static let url = "https://h.example"
    let plain = try! GitCredential(parsing: SecretBytes(utf8: "protocol=https\nhost=h.example\n"))
    let bearerCapable = try! GitCredential(parsing: SecretBytes(utf8: "capability[]=authtype\nprotocol=https\nhost=h.example\nusername=git\n"))

    func reply(_ resolved: ResolvedCredential, for credential: GitCredential? = nil, now: Int64 = 1_000) throws(HelperFailure) -> GitReply {
        try GitReply.to(resolved, for: credential ?? plain, url: Self.url, session: "forge", now: now)
    }

    func text(_ reply: GitReply) -> String? {
        guard case .lines(let bytes) = reply else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func item(account: String, secret: String, kind: ItemKind = .secret) -> ResolvedCredential {
        let metadata = ItemMetadata(service: "git:" + url, account: account, label: "L", comment: "", kind: kind, created: Date(), modified: Date())
        return .item(VaultItem(metadata: metadata, secret: SecretBytes(utf8: secret)))
    }

    static func foreign(_ attributes: [String: String], secret: [UInt8]) -> ResolvedCredential {
        .foreign(ForeignItem(schemaName: "org.git.Password", attributes: attributes, label: "Git", created: 0, modified: 0), secret: SecretBytes(secret))
    }

    @Test func vaultsOwnItemIsTheAccountAndThePasswordWithWhatWasStoredBeside() throws {
        #expect(text(try reply(Self.item(account: "alice", secret: "pw"))) == "username=alice\npassword=pw\n")
        let full = try reply(Self.item(account: "alice", secret: "pw\npassword_expiry_utc=2000\noauth_refresh_token=r1"))
        #expect(text(full) == "username=alice\npassword=pw\npassword_expiry_utc=2000\noauth_refresh_token=r1\n")
        // Past its expiry: nothing, as git 2.41+ would discard it.
        #expect(try reply(Self.item(account: "alice", secret: "pw\npassword_expiry_utc=1000")) == .nothing)
    }

    @Test func gitCredentialLibsecretsItemIsGivenWithItsUserUnlessGitCouldNotTakeIt() throws {
        #expect(text(try reply(Self.foreign(["user": "carol", "server": "h.example"], secret: Array("pw".utf8)))) == "username=carol\npassword=pw\n")
        #expect(try reply(Self.foreign(["server": "h.example"], secret: Array("pw".utf8))) == .nothing)
        for secret in [Array("pass\u{0}word".utf8), Array("pass\rword".utf8)] {
            let notice = try reply(Self.foreign(["user": "carol"], secret: secret))
            #expect(notice == .notice("the git-credential-libsecret item for https://h.example holds a NUL or carriage return, which git cannot take; not used"))
        }
    }

    @Test func severalCredentialsAreNamedWithWhatToDo() throws {
        #expect(try reply(.ambiguous(amongOwnItems: true, count: 3))
                == .notice("3 credentials are kept for https://h.example; set credential.username to choose one"))
        #expect(try reply(.ambiguous(amongOwnItems: false, count: 2))
                == .notice("2 git-credential-libsecret credentials are kept for https://h.example; set credential.username to choose one"))
        #expect(try reply(.nothing) == .nothing)
    }

    @Test func aSessionTokenIsABearerCredentialWhenGitOffersItElseThePassword() throws {
        let expires = Date(timeIntervalSince1970: 1_700_000_000.9)
        let token = AccessToken(accessToken: "tok-1", tokenType: "Bearer", expiresAt: expires, account: "alice")
        #expect(text(try reply(.token(token), for: bearerCapable))
                == "capability[]=authtype\nauthtype=Bearer\ncredential=tok-1\nephemeral=true\npassword_expiry_utc=1700000000\n")
        // git's username when it sent one, else the session's account.
        #expect(text(try reply(.token(token))) == "username=alice\npassword=tok-1\npassword_expiry_utc=1700000000\n")
        let withUser = try GitCredential(parsing: SecretBytes(utf8: "protocol=https\nhost=h.example\nusername=git\n"))
        #expect(text(try reply(.token(AccessToken(accessToken: "tok-2", tokenType: "Bearer", expiresAt: nil, account: "alice")), for: withUser))
                == "username=git\npassword=tok-2\n")
        // A token that would add lines of the provider's own to git's answer is not given.
        #expect { try reply(.token(AccessToken(accessToken: "tok\nusername=evil", tokenType: "Bearer", expiresAt: nil, account: "a"))) } throws: {
            ($0 as? HelperFailure)?.message == "the access token of vault session 'forge' holds a line break or NUL, so it cannot be given to git"
        }
    }
}
