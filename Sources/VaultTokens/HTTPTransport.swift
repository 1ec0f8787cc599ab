import Foundation

/// Sends one HTTP request and blocks until the answer: what providers and `SessionRefresher`
/// need from the network. `HTTPClient` is the real one (URLSession); tests script answers.
/// Implementations block the calling thread: call from threads that may block, never the
/// cooperative pool.
public protocol HTTPTransport: Sendable {
    func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> HTTPClient.Result
}
