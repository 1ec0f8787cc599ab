import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request at a time through URLSession, blocking the calling thread until the answer
/// or the timeout. TLS verification is URLSession's default and is never turned off.
/// Redirects are never followed: the 3xx answer itself is returned (and providers treat it as an
/// error naming the redirect), so credentials in headers or the body never go to another origin.
/// A body larger than `maximumBodySize` is refused by its Content-Length and while it arrives,
/// without holding more than that in memory. No cookies, no cache.
/// Call from threads that may block (vaultd's connection threads), never the cooperative pool.
public struct HTTPClient: HTTPTransport {
    /// Seconds for the whole request, answer included.
    public var timeout: Double
    public var maximumBodySize: Int

    public static let defaultMaximumBodySize = 1 << 20

    public init(timeout: Double = 10, maximumBodySize: Int = Self.defaultMaximumBodySize) {
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
    }

    public enum Result: Sendable {
        case response(status: Int, body: Data)
        /// Could not connect, connection reset, timed out: worth retrying.
        case failed(String)
        /// An answer vault will not read (larger than the cap): not worth retrying.
        case refused(String)
    }

    public func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> Result {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        request.httpShouldHandleCookies = false
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        let collector = Collector(limit: maximumBodySize)
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        task.resume()
        if collector.done.wait(timeout: .now() + timeout + 1) == .timedOut {
            task.cancel()
            return .failed("no answer within \(timeout.clean) s")
        }
        return collector.result(timeout: timeout)
    }

    /// A 3xx answer's problem for an endpoint that must answer itself; nil for other statuses.
    static func redirectProblem(_ status: Int, from who: String) -> String? {
        (300..<400).contains(status) ? "\(who) answered HTTP \(status), a redirect; vault does not follow redirects (configure the final URL)" : nil
    }

    /// The delegate of one request's session: refuses redirects, gathers the body up to the
    /// limit, cancels past it, and signals `done` once the task ends.
    private final class Collector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        private let limit: Int
        private let lock = NSLock()
        private var status: Int?
        private var body = Data()
        private var tooLarge = false
        private var error: Error?

        init(limit: Int) { self.limit = limit }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            completionHandler(nil)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
            let over = response.expectedContentLength > Int64(limit)
            lock.withLock {
                status = (response as? HTTPURLResponse)?.statusCode
                if over { tooLarge = true }
            }
            completionHandler(over ? .cancel : .allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let over = lock.withLock { () -> Bool in
                guard !tooLarge else { return true }
                if body.count + data.count > limit {
                    tooLarge = true
                    body = Data()
                    return true
                }
                body.append(data)
                return false
            }
            if over { dataTask.cancel() }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
            lock.withLock {
                self.error = error
                if status == nil { status = (task.response as? HTTPURLResponse)?.statusCode }
            }
            done.signal()
        }

        func result(timeout: Double) -> Result {
            lock.withLock {
                if tooLarge { return .refused("the answer is larger than \(limit / 1024) KiB") }
                if let error {
                    let nsError = error as NSError
                    if nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorTimedOut {
                        return .failed("no answer within \(timeout.clean) s")
                    }
                    return .failed(ProviderValue.sanitized(nsError.localizedDescription))
                }
                guard let status else { return .failed("no HTTP response") }
                return .response(status: status, body: body)
            }
        }
    }
}

extension Double {
    /// Whole numbers without ".0"; only for numbers known to be small (timeouts).
    var clean: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
