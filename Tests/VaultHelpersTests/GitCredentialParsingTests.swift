import Testing
@testable import VaultHelpers
import VaultCore

/// git's `key=value` input (`GitCredential+Parsing`): what it keeps, and hostile input refused
/// with a message that names the line and the key, never a value.
@Suite struct GitCredentialParsingTests {
    func parse(_ text: String) throws(HelperFailure) -> GitCredential {
        try GitCredential(parsing: SecretBytes(utf8: text))
    }

    func parse(_ bytes: [UInt8]) throws(HelperFailure) -> GitCredential {
        try GitCredential(parsing: SecretBytes(bytes))
    }

    func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try parse(bytes)
            return nil
        } catch {
            #expect(error.status == 1)
            return error.message
        }
    }

    @Test func keepsValuesSecretsAndListsUpToTheFirstBlankLine() throws {
        let credential = try parse(
            "protocol=https\r\nhost=git.example.com:8443\npath=team/repo.git\nusername=alice\npassword=pa=ss\n"
                + "password_expiry_utc=1700000000\noauth_refresh_token=r1\ncapability[]=authtype\ncapability[]=state\n\nhost=later.example\n")
        #expect(credential.protocol == "https" && credential.host == "git.example.com:8443" && credential.path == "team/repo.git")
        #expect(credential.username == "alice")
        #expect(credential.password == SecretBytes(utf8: "pa=ss"), "everything after the first '=' is the value")
        #expect(credential.refreshToken == SecretBytes(utf8: "r1") && credential.passwordExpiry == 1_700_000_000)
        #expect(credential.values["password"] == nil && credential.values["oauth_refresh_token"] == nil, "secrets are never Strings")
        #expect(credential.offers("authtype") && credential.offers("state") && !credential.offers("other"))
        // A CR before the newline is not part of the value.
        #expect(credential.protocol?.hasSuffix("\r") == false)
    }

    @Test func aDuplicateKeyKeepsItsLastValueAndAnEmptyListEntryClearsTheList() throws {
        let credential = try parse("host=first.example\nhost=second.example\npassword=one\npassword=two\nwwwauth[]=Basic\nwwwauth[]=\nwwwauth[]=Bearer\n")
        #expect(credential.host == "second.example")
        #expect(credential.password == SecretBytes(utf8: "two"))
        #expect(credential.lists["wwwauth"] == ["Bearer"])
    }

    @Test func missingFieldsLeaveNothingToLookUp() throws {
        for text in ["host=h.example\n", "protocol=https\n", "protocol=https\nhost=\n", "", "\n", "username=alice\npassword=x\n"] {
            let credential = try parse(text)
            #expect(credential.url == nil, "\(text)")
            #expect(try credential.itemService() == nil, "\(text)")
        }
        // An empty username is no username.
        #expect(try parse("protocol=https\nhost=h.example\nusername=\n").checkedUsername() == nil)
    }

    /// git splits a `url=` into its parts before it runs a helper; a helper given one keeps it as
    /// an ordinary attribute and looks nothing up from it.
    @Test func aURLAttributeIsNotTakenApart() throws {
        let alone = try parse("url=https://alice@h.example:8443/team/repo.git\n")
        #expect(alone.values["url"] == "https://alice@h.example:8443/team/repo.git")
        #expect(alone.protocol == nil && alone.host == nil && alone.username == nil && alone.url == nil)
        let beside = try parse("url=https://other.example/x\nprotocol=https\nhost=h.example\n")
        #expect(beside.url == "https://h.example")
        #expect(try beside.itemService() == "git:https://h.example")
    }

    @Test func hostileInputIsRefusedNamingTheLineAndNeverAValue() {
        let secret = "hunter2-never-shown"
        let cases: [(String, [UInt8], String)] = [
            ("NUL", Array("protocol=https\nhost=h\u{0}x\npassword=\(secret)\n".utf8), "input line 2 contains a NUL byte"),
            ("NUL in a secret", Array("password=\(secret)\u{0}\n".utf8), "input line 1 contains a NUL byte"),
            ("no equals", Array("protocol=https\n\(secret)\n".utf8), "input line 2 is not key=value"),
            ("empty key", Array("=\(secret)\n".utf8), "input line 1 has an empty key"),
            ("key not UTF-8", [0xFF, UInt8(ascii: "=")] + Array(secret.utf8), "has an empty key or one that is not UTF-8"),
            ("value not UTF-8", Array("host=h.".utf8) + [0xC3, 0x28], "the value of 'host' (input line 1) is not UTF-8"),
            ("bad protocol", Array("protocol=--upload-pack=\(secret)\n".utf8), "'protocol' (input line 1) is not a URL scheme"),
            ("protocol with a digit first", Array("protocol=1https\n".utf8), "not a URL scheme"),
            ("empty protocol", Array("protocol=\n".utf8), "not a URL scheme"),
            ("expiry not a number", Array("password_expiry_utc=soon\n".utf8), "'password_expiry_utc' (input line 1) is not a number"),
            ("expiry too long", Array("password_expiry_utc=1234567890123456789\n".utf8), "is not a number"),
            ("negative expiry", Array("password_expiry_utc=-1\n".utf8), "is not a number"),
        ]
        for (name, input, expected) in cases {
            let message = refusal(input)
            #expect(message?.contains(expected) == true, "\(name): \(message ?? "accepted")")
            #expect(message?.contains(secret) != true, "\(name): the value in the message")
        }
    }

    @Test func aLineOverGitsLimitIsRefusedAndOneAtTheLimitIsKept() throws {
        let atLimit = Array("host=".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: GitCredential.maxLineBytes - 5)
        #expect(try parse(atLimit).host?.utf8.count == GitCredential.maxLineBytes - 5)
        let over = Array("password=".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: GitCredential.maxLineBytes)
        #expect(refusal(over) == "input line 1 is over 65535 bytes")
    }

    @Test func confidentialValuesMayBeAnyBytesButNUL() throws {
        let credential = try parse(Array("password=".utf8) + [0xFF, 0xFE, 0x01] + Array("\noauth_refresh_token=".utf8) + [0x80])
        #expect(credential.password == SecretBytes([0xFF, 0xFE, 0x01]) && credential.refreshToken == SecretBytes([0x80]))
    }

    @Test func schemesFollowRFC3986() {
        for scheme in ["https", "http", "git+ssh", "svn.x-y", "H2"] { #expect(GitCredential.isScheme(scheme), "\(scheme)") }
        for scheme in ["", "1x", "-x", "ht tp", "htt:p", "é", "+x"] { #expect(!GitCredential.isScheme(scheme), "\(scheme)") }
    }
}
