import VaultCore
import Foundation
import Synchronization
@testable import VaultTokens
import VaultSystem

/// A scripted `HTTPTransport`: answers in order (the last one repeats), records every request,
/// optionally waits before answering so concurrent callers overlap.
final class FakeTransport: HTTPTransport {
    struct Sent: Sendable {
        var method: String
        var url: String
        var headers: [String: String]
        var body: Data?

        var text: String { body.map { String(decoding: $0, as: UTF8.self) } ?? "" }
        var json: [String: Any] { body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:] }
    }

    private let state: AdaptiveLock<(answers: [HTTPClient.Result], sent: [Sent])>
    let delay: Double

    init(_ answers: [HTTPClient.Result], delay: Double = 0) {
        state = AdaptiveLock((answers, []))
        self.delay = delay
    }

    /// A JSON answer.
    static func json(_ status: Int, _ object: [String: Any]) -> HTTPClient.Result {
        .response(status: status, body: try! JSONSerialization.data(withJSONObject: object))
    }

    static func text(_ status: Int, _ text: String) -> HTTPClient.Result {
        .response(status: status, body: Data(text.utf8))
    }

    var sent: [Sent] { state.withLock { $0.sent } }

    func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> HTTPClient.Result {
        let answer = state.withLock { state -> HTTPClient.Result in
            state.sent.append(Sent(method: method, url: url.absoluteString, headers: headers, body: body))
            return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
        }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        return answer
    }
}

/// Asserts-free helpers for outcomes.
extension TokenOutcome {
    var grant: TokenGrant? { if case .granted(let grant) = self { grant } else { nil } }
    var rejectedCode: String? { if case .rejected(let code, _) = self { code } else { nil } }
    var isTemporary: Bool { if case .temporary = self { true } else { false } }
    var isMalformed: Bool { if case .malformed = self { true } else { false } }
}
