import Testing
@testable import VaultHelpers
import VaultClient
import VaultCore

/// From what git sent to what vault looks up (`GitCredential+Item`, `+Libsecret`, `+Lookup`),
/// and from a stored secret back to git's values (`GitStoredCredential`).
@Suite struct GitCredentialMappingTests {
    func credential(_ text: String) throws -> GitCredential {
        try GitCredential(parsing: SecretBytes(utf8: text))
    }

    @Test func theItemServiceIsTheURLWithItsPathOnlyWhenGitSentOne() throws {
        #expect(try credential("protocol=https\nhost=git.example.com\n").itemService() == "git:https://git.example.com")
        #expect(try credential("protocol=https\nhost=git.example.com:8443\n").itemService() == "git:https://git.example.com:8443")
        #expect(try credential("protocol=https\nhost=h.example\npath=/team/repo.git\n").itemService() == "git:https://h.example/team/repo.git")
        #expect(try credential("protocol=https\nhost=h.example\npath=team/repo.git\n").itemService() == "git:https://h.example/team/repo.git")
        #expect(try credential("protocol=https\nhost=h.example\npath=\n").itemService() == "git:https://h.example")
        #expect(try credential("protocol=ssh\nhost=[::1]:2222\n").itemService() == "git:ssh://[::1]:2222")
    }

    @Test func namesVaultCannotKeepAreRefusedSayingSo() throws {
        for text in ["protocol=https\nhost=h.example\u{1B}[2J\n", "protocol=https\nhost=" + String(repeating: "h", count: 600) + "\n"] {
            #expect { try credential(text).itemService() } throws: { error in
                let message = (error as? HelperFailure)?.message ?? ""
                return message.hasPrefix("vault cannot keep this credential: the URL")
            }
        }
        #expect { try credential("protocol=https\nhost=h\nusername=a\u{7F}b\n").checkedUsername() } throws: {
            ($0 as? HelperFailure)?.message.contains("the username must not contain control characters") == true
        }
    }

    @Test func libsecretAttributesAreThoseGitCredentialLibsecretWrites() throws {
        let full = try credential("protocol=https\nhost=h.example:8443\npath=team/repo.git\n")
        let expected: [String: String?] = ["protocol": "https", "server": "h.example", "port": "8443", "object": "team/repo.git", "user": "alice"]
        #expect(full.libsecretAttributes(user: "alice") == expected)
        // What git did not send must be absent from the item: nil, and no `user` to leave it open.
        let bare: [String: String?] = ["protocol": "https", "server": "h.example", "port": nil, "object": nil]
        #expect(try credential("protocol=https\nhost=h.example\n").libsecretAttributes(user: nil) == bare)
        #expect(try credential("protocol=https\nhost=h.example:0\n").libsecretAttributes(user: nil) == nil)
        #expect(try credential("host=h.example\n").libsecretAttributes(user: nil) == nil)
        #expect(full.libsecretLabel == "Git: https://h.example:8443/team/repo.git")
    }

    @Test func aPortIsSplitOffOnlyWhenItIsOne() {
        #expect(GitCredential.splitPort("h.example")! == ("h.example", nil))
        #expect(GitCredential.splitPort("h.example:8443")! == ("h.example", "8443"))
        #expect(GitCredential.splitPort("h.example:08443")! == ("h.example", "8443"))
        #expect(GitCredential.splitPort("[::1]")! == ("[::1]", nil))
        #expect(GitCredential.splitPort("[::1]:22")! == ("[::1]", "22"))
        for host in ["h.example:", "h.example:0", "h.example:65536", "h.example:x", "a:b:22"] { #expect(GitCredential.splitPort(host) == nil, "\(host)") }
    }

    @Test func theLookupAsksForTheLinkedSessionAloneOrElseBothHelpersItems() throws {
        let withUser = try credential("protocol=https\nhost=h.example\nusername=alice\n")
        #expect(try withUser.lookup(service: "git:https://h.example", linkedTo: nil) == CredentialLookup(
            helper: .git, service: "git:https://h.example", account: "alice",
            foreignAttributes: ["protocol": "https", "server": "h.example", "port": nil, "object": nil, "user": "alice"]))
        let linked = try withUser.lookup(service: "git:https://h.example", linkedTo: GitSessionLink(service: "forge", account: "bob"))
        #expect(linked == CredentialLookup(helper: .git, service: "git:https://h.example", sessionService: "forge", sessionAccount: "bob"))
        // A linked host's username is git's to send, not an item's name: not checked.
        let oddUser = try credential("protocol=https\nhost=h.example\nusername=a\u{7F}\n")
        #expect(try oddUser.lookup(service: "git:https://h.example", linkedTo: GitSessionLink(service: "forge")).sessionService == "forge")
        #expect(throws: HelperFailure.self) { try oddUser.lookup(service: "git:https://h.example", linkedTo: nil) }
    }

    @Test func aStoredSecretRoundTripsThroughGitCredentialLibsecretsLayout() {
        let stored = GitStoredCredential(password: SecretBytes(utf8: "pw"), expiry: 1_700_000_000, refreshToken: SecretBytes(utf8: "r1"))
        #expect(stored.secret == SecretBytes(utf8: "pw\npassword_expiry_utc=1700000000\noauth_refresh_token=r1"))
        #expect(GitStoredCredential(secret: stored.secret) == stored)
        let plain = GitStoredCredential(secret: SecretBytes(utf8: "only a password"))
        #expect(plain.password == SecretBytes(utf8: "only a password") && plain.expiry == nil && plain.refreshToken == nil)
        // Lines of a later version are ignored; the password is the first line whatever follows.
        let later = GitStoredCredential(secret: SecretBytes(utf8: "pw\nsomething_new=1\npassword_expiry_utc=5"))
        #expect(later.password == SecretBytes(utf8: "pw") && later.expiry == 5)
        #expect(later.isExpired(now: 5) && !later.isExpired(now: 4) && !plain.isExpired(now: .max))
    }
}
