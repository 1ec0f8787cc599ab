import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension PythonFixture {
    /// Sends `request` to the fixture and returns the HTTP status and the body as a JSON object.
    func exchange(_ path: String, method: String = "POST", body: String? = nil, headers: [String: String] = [:]) -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body.map { Data($0.utf8) }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: (Int, [String: Any]) = (0, [:])
        URLSession.shared.dataTask(with: request) { data, response, _ in
            let json = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
            answer = ((response as? HTTPURLResponse)?.statusCode ?? 0, json)
            done.signal()
        }.resume()
        done.wait()
        return answer
    }
}
