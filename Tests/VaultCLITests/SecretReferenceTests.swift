import Testing
import VaultClient
import VaultCore

/// The reference form is fixed: what parses, and every way a hostile one is refused.
@Suite struct SecretReferenceTests {
    @Test func serviceAccountAndFieldPercentDecoded() throws {
        let reference = try SecretReference(parsing: "vault://git%2Fhub%20com/octo%3Fcat?field=expires_at")
        #expect(reference.service == "git/hub com" && reference.account == "octo?cat" && reference.field == "expires_at")
        let bare = try SecretReference(parsing: "vault://example")
        #expect(bare.service == "example" && bare.account == nil && bare.field == nil)
        #expect(try SecretReference(parsing: "vault://caf%C3%A9/%E2%9C%93").service == "café")
        #expect(try SecretReference(parsing: "vault://café/x").service == "café")
        #expect(try SecretReference(parsing: "vault://a/b?field=Access%20Key").field == "Access Key")
    }

    @Test(arguments: [
        ("vault:/x", "does not start with vault://"),
        ("VAULT://x", "does not start with vault://"),
        ("vault://", "the service is empty"),
        ("vault:///acct", "the service is empty"),
        ("vault://svc/", "the account is empty"),
        ("vault://svc//x", "more than SERVICE and ACCOUNT"),
        ("vault://a/b/c", "more than SERVICE and ACCOUNT"),
        ("vault://a%2", "bad percent-encoding"),
        ("vault://a%zz", "bad percent-encoding"),
        ("vault://a%FF", "bad percent-encoding"),
        ("vault://a%00b", "control characters"),
        ("vault://a%0Ab", "control characters"),
        ("vault://a\nb", "control character"),
        ("vault://a\u{1B}[31m", "control character"),
        ("vault://a\u{9B}b", "control character"),
        ("vault://a b", "space"),
        ("vault://a#b", "'#'"),
        ("vault://a?", "query after '?' is empty"),
        ("vault://a?mode=x", "'mode' is not a query key"),
        ("vault://a?field=x&field=y", "field is given twice"),
        ("vault://a?field=", "field needs a name"),
        ("vault://a?field", "field needs a name"),
        ("vault://a?field=%0A", "field needs a name"),
        ("vault://a?&", "empty part"),
    ])
    func refused(_ text: String, _ why: String) {
        #expect {
            _ = try SecretReference(parsing: text)
        } throws: { error in
            guard let error = error as? VaultClientError else { return false }
            return error.code == .badRequest && error.message.contains(why) && error.message.contains(SecretReference.form)
                && !error.message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        }
    }

    @Test func overlongReferencesAndNamesAreRefusedAndShownShortened() throws {
        let long = "vault://" + String(repeating: "a", count: SecretReference.maxLength)
        #expect(throws: VaultClientError.self) { try SecretReference(parsing: long) }
        do {
            _ = try SecretReference(parsing: long)
        } catch {
            #expect(error.message.contains("longer than") && error.message.count < 400)
        }
        let longName = "vault://" + String(repeating: "b", count: ItemLimits.maxNameBytes + 1)
        #expect(throws: VaultClientError.self) { try SecretReference(parsing: longName) }
        #expect(!SecretReference.isReference("https://x") && SecretReference.isReference("vault://x"))
    }
}
