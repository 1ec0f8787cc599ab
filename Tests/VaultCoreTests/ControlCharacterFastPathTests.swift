import Testing
import VaultCore

/// `replacingControlCharacters` returns text without control characters as it is (its fast
/// path) and still replaces every C0, DEL and C1 character, also next to text it keeps.
@Suite struct ControlCharacterFastPathTests {
    @Test func cleanTextIsKeptAndEveryControlCharacterReplaced() {
        for clean in ["", "plain text", "é ü 日本 🎉", "© ® ±", "tabs\tand\nnewlines kept"] {
            #expect(clean.replacingControlCharacters(keepingTabsAndNewlines: true) == clean)
        }
        #expect("© \u{85} \u{9F}\u{80}x".replacingControlCharacters() == "©     x")
        #expect("a\u{0}b\u{1F}c\u{7F}d\u{9B}".replacingControlCharacters() == "a b c d ")
        #expect("tab\there".replacingControlCharacters() == "tab here")
    }
}
