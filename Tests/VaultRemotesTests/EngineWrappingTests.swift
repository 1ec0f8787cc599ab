import Foundation
import Testing
import VaultCore
@testable import VaultRemotes

/// Response wrapping's answers as a hostile or broken engine would send them: a wrapped answer
/// without a usable token or ttl, and a wrapping lookup without a creation path, are refused.
@Suite struct EngineWrappingTests {
    func data(_ text: String) -> Data { Data(text.utf8) }

    @Test func aWrappedAnswerMustCarryATokenAndATTL() throws {
        let good = try EngineAnswer.wrapped(data(#"{"wrap_info":{"token":"hvs.wrap","ttl":1800,"creation_path":"auth/token/create-orphan"}}"#), orphan: true)
        #expect(good == WrappedToken(wrapping: "hvs.wrap", orphan: true))
        let bad = [
            "", "not json", "{}", #"{"auth":{"client_token":"s.unwrapped"}}"#,
            #"{"wrap_info":{"ttl":1800}}"#, #"{"wrap_info":{"token":"","ttl":1800}}"#,
            #"{"wrap_info":{"token":"two words","ttl":1800}}"#, #"{"wrap_info":{"token":"line\nbreak","ttl":1800}}"#,
            #"{"wrap_info":{"token":"\#(String(repeating: "x", count: 5000))","ttl":1800}}"#,
            #"{"wrap_info":{"token":"hvs.wrap"}}"#, #"{"wrap_info":{"token":"hvs.wrap","ttl":0}}"#,
        ]
        for body in bad {
            #expect(throws: EngineError.self, "\(body.prefix(60))") { try EngineAnswer.wrapped(data(body), orphan: true) }
        }
    }

    @Test func aWrappingLookupMustNameItsCreationPath() throws {
        #expect(try EngineAnswer.wrappingPath(data(#"{"data":{"creation_path":"auth/token/create","creation_ttl":1800}}"#)) == "auth/token/create")
        // Control characters are taken out before the path reaches a report.
        #expect(!(try EngineAnswer.wrappingPath(data(#"{"data":{"creation_path":"sys/\u001b[31mevil"}}"#))).contains("\u{1b}"))
        for body in ["", "{}", #"{"data":{}}"#, #"{"data":{"creation_path":5}}"#, #"{"data":{"creation_path":"\#(String(repeating: "p", count: 600))"}}"#] {
            #expect(throws: EngineError.self, "\(body.prefix(60))") { try EngineAnswer.wrappingPath(data(body)) }
        }
    }
}
