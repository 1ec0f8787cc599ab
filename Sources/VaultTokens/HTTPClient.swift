import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request at a time through URLSession, blocking the calling thread until the answer
/// or the timeout. TLS verification is URLSession's default and is never turned off.
/// Call from threads that may block (vaultd's connection threads), never the cooperative pool.
public struct HTTPClient: HTTPTransport {
    public var timeout: Double

    public init(timeout: Double = 10) { self.timeout = timeout }

    public enum Result: Sendable {
        case response(status: Int, body: Data)
        /// Could not connect, connection reset, timed out: worth retrying.
        case failed(String)
    }

    public func send(_ method: String, _ url: URL, headers: [String: String], body: Data?) -> Result {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let box = ResponseBox()
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            box.set(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout + 1) == .timedOut {
            task.cancel()
            return .failed("no answer within \(timeout.clean) s")
        }
        let (data, status, error) = box.get()
        if let error {
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain && nsError.code == NSURLErrorTimedOut {
                return .failed("no answer within \(timeout.clean) s")
            }
            return .failed(nsError.localizedDescription)
        }
        guard let status else { return .failed("no HTTP response") }
        return .response(status: status, body: data ?? Data())
    }

    private final class ResponseBox: @unchecked Sendable {
        private let lock = NSLock()
        private var data: Data?, status: Int?, error: Error?
        func set(data: Data?, status: Int?, error: Error?) { lock.withLock { (self.data, self.status, self.error) = (data, status, error) } }
        func get() -> (Data?, Int?, Error?) { lock.withLock { (data, status, error) } }
    }
}

extension Double {
    var clean: String { self == rounded() ? String(Int(self)) : String(self) }
}
