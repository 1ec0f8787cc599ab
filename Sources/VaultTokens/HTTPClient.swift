import CCurlShims
import Foundation
import VaultCore

/// One HTTP request at a time through libcurl (`vault_http_request`), blocking the calling
/// thread until the answer or the timeout. TLS verification is libcurl's default and is never
/// turned off.
///
/// - Redirects are never followed: the 3xx answer itself is returned (providers treat it as an
///   error naming the redirect), so credentials in headers or the body never go to another origin.
/// - A body larger than `maximumBodySize` is refused by its Content-Length and while it arrives:
///   libcurl's write callback stops the transfer, so no more than the cap is ever held.
///   (FoundationNetworking's URLSession queues every received chunk for its delegate without
///   holding the transfer back, which let a 400 MiB answer reach hundreds of MiB in memory.)
/// - The whole request, answer included, takes at most `timeout` seconds. No cookies, no cache,
///   no decompression, http and https only.
///
/// Call from threads that may block (vaultd's connection threads), never the cooperative pool.
public struct HTTPClient: HTTPTransport {
    /// Seconds for the whole request, answer included.
    public var timeout: Double
    public var maximumBodySize: Int
    /// The PEM file of the certificate authorities to trust instead of the system's (nil: the system's).
    public var caFile: String?

    public static let defaultMaximumBodySize = 1 << 20

    public init(timeout: Double = 10, maximumBodySize: Int = Self.defaultMaximumBodySize, caFile: String? = nil) {
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        self.caFile = caFile
    }

    public enum Result: Sendable {
        case response(status: Int, body: Data)
        /// Could not connect, connection reset, timed out: worth retrying.
        case failed(String)
        /// An answer vault will not read (larger than the cap): not worth retrying.
        case refused(String)
    }

    public func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> Result {
        let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        var cLines = lines.map { strdup($0) }
        defer {
            for line in cLines { if let line { memset(line, 0, strlen(line)); free(line) } }
        }
        // Finite and positive: the configuration checks VAULT_HTTP_TIMEOUT, this guards the conversion.
        let milliseconds = timeout.isFinite && timeout > 0 ? Int(min(timeout, 86400) * 1000) : 10_000
        var result = vault_http_result()
        defer { vault_http_result_free(&result) }
        let outcome = cLines.withUnsafeMutableBufferPointer { lineBuffer in
            lineBuffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constLines in
                withBody(body) { bytes, count in
                    vault_http_request(method, url.absoluteString, constLines.baseAddress, constLines.count, bytes, count,
                                       milliseconds, maximumBodySize, caFile, &result)
                }
            }
        }
        switch outcome {
        case Int32(VAULT_HTTP_ANSWERED.rawValue):
            let data = result.body.map { Data(bytes: $0, count: result.body_length) } ?? Data()
            return .response(status: Int(result.status), body: data)
        case Int32(VAULT_HTTP_TOO_LARGE.rawValue):
            return .refused("the answer is larger than \(maximumBodySize / 1024) KiB")
        case Int32(VAULT_HTTP_TIMED_OUT.rawValue):
            return .failed("no answer within \(timeout.secondsText) s")
        default:
            let message = withUnsafeBytes(of: result.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failed(ProviderValue.sanitized(message))
        }
    }

    private func withBody<R>(_ body: Data?, _ call: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        guard let body else { return call(nil, 0) }
        return body.withUnsafeBytes { call($0.bindMemory(to: UInt8.self).baseAddress ?? UnsafePointer(bitPattern: 1), body.count) }
    }

    /// A 3xx answer's problem for an endpoint that must answer itself; nil for other statuses.
    static func redirectProblem(_ status: Int, from who: String) -> String? {
        (300..<400).contains(status) ? "\(who) answered HTTP \(status), a redirect; vault does not follow redirects (configure the final URL)" : nil
    }
}
