import Foundation
import Testing
import VaultClient
import VaultCore
@testable import VaultCLI

/// The checks `vaultctl token` applies before printing a token as a header, and its shell quoting.
@Suite struct TokenOutputCheckTests {
    func token(_ value: String, type: String = "Bearer") -> AccessToken {
        AccessToken(accessToken: value, tokenType: type, expiresAt: nil, account: "alice")
    }

    @Test func headerFormatsTakeOnlyB64Tokens() throws {
        for good in ["abc", "aZ09-._~+/", "eyJhbGciOi.eyJzdWIi.c2ln", "abc==", "a="] {
            try Commands.checkHeaderSafe(token(good))
        }
        for bad in ["", "=", "a b", "a=b", "a\r\nX-Injected: 1", "tok\u{1B}[2J", "é", "a\"b", "a;b", "a,b", "abc==x"] {
            #expect(throws: VaultError.self, "\(bad.debugDescription)") { try Commands.checkHeaderSafe(token(bad)) }
        }
        for badType in ["", "Bearer x", "Bearer\r\n", "Bé"] {
            #expect(throws: VaultError.self) { try Commands.checkHeaderSafe(token("abc", type: badType)) }
        }
        try Commands.checkHeaderSafe(token("abc", type: "DPoP"))
    }

    @Test func shellQuotingWrapsEveryQuote() {
        #expect(Commands.shellQuoted("abc") == "'abc'")
        #expect(Commands.shellQuoted("") == "''")
        #expect(Commands.shellQuoted("a'b") == #"'a'\''b'"#)
        #expect(Commands.shellQuoted("''") == #"''\'''\'''"#)
    }

    @Test func terminalTextLosesControlCharacters() {
        #expect("a\u{1B}]0;x\u{07}b\u{9B}2Jc\u{7F}".replacingControlCharacters() == "a ]0;x b 2Jc ")
        #expect("a\tb\nc\rd".replacingControlCharacters(keepingTabsAndNewlines: true) == "a\tb\nc d")
        #expect("a\tb\nc".replacingControlCharacters() == "a b c")
    }
}
