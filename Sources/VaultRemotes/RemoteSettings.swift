#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// What `vaultctl remote add` says about one engine: where it is, which KV v2 mount and prefix
/// hold the secrets, which authorities its certificate may come from, how old a cached copy may
/// be served while the engine cannot be reached, and how to log in.
public struct RemoteSettings: Codable, Sendable, Equatable {
    public var name: String
    /// `https://HOST[:PORT]`, or `http://` to a loopback address only.
    public var url: String
    public var mount: String
    public var prefix: String
    public var caFile: String?
    /// Seconds a cached copy is served while the engine is unreachable.
    public var maxAge: Double
    public var auth: RemoteAuth

    public static let defaultMount = "secret"
    public static let defaultMaxAge = 86_400.0

    enum CodingKeys: String, CodingKey {
        case name, url, mount, prefix
        case caFile = "ca_file"
        case maxAge = "max_age"
        case auth
    }

    public init(name: String, url: String, mount: String? = nil, prefix: String? = nil, caFile: String? = nil, maxAge: Double? = nil, auth: RemoteAuth) {
        self.name = name
        self.url = url
        self.mount = mount ?? Self.defaultMount
        self.prefix = prefix ?? ""
        self.caFile = caFile
        self.maxAge = maxAge ?? Self.defaultMaxAge
        self.auth = auth
    }

    public var remoteName: RemoteName { get throws(VaultError) { try RemoteName(name) } }

    /// These settings checked and normalised (no trailing `/` on the URL, the prefix or the
    /// mount); throws naming the first problem.
    public func validated() throws(VaultError) -> RemoteSettings {
        var settings = self
        _ = try RemoteName(name)
        while settings.url.hasSuffix("/") { settings.url.removeLast() }
        guard let components = URLComponents(string: settings.url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
              components.user == nil, components.password == nil, components.path.isEmpty
        else {
            throw VaultError.invalidInput("--url must be the engine's address, such as https://bao.example.com:8200 (no path, no credentials)")
        }
        switch scheme {
        case "https": break
        case "http":
            guard Self.isLoopback(host) else {
                throw VaultError.invalidInput("--url \(settings.url) is plain HTTP to another machine: tokens and secrets would cross the network unencrypted; use https://")
            }
        default:
            throw VaultError.invalidInput("--url must start with https:// (or http:// to a loopback address)")
        }
        settings.mount = Self.trimmed(mount)
        settings.prefix = Self.trimmed(prefix)
        if let problem = KVPath.problem(with: settings.mount) { throw VaultError.invalidInput("--mount: \(problem)") }
        if !settings.prefix.isEmpty, let problem = KVPath.problem(with: settings.prefix) { throw VaultError.invalidInput("--prefix: \(problem)") }
        if let caFile, !caFile.hasPrefix("/") { throw VaultError.invalidInput("--ca-file must be an absolute path") }
        guard maxAge.isFinite, maxAge > 0, maxAge <= DurationText.maximum else { throw VaultError.invalidInput("--max-age must be a positive duration such as 1d") }
        try auth.validate()
        return settings
    }

    static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while text.hasPrefix("/") { text = text.dropFirst() }
        while text.hasSuffix("/") { text = text.dropLast() }
        return String(text)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The engine's API path of `path` under the prefix, in `area` (`data`, `metadata`, `delete`).
    public func enginePath(_ area: String, _ path: KVPath) -> String {
        let full = try? KVPath(path.under(prefix), folder: path.isFolder)
        let encodedMount = mount.split(separator: "/").map { KVPath.encoded(String($0)) }.joined(separator: "/")
        return "/v1/\(encodedMount)/\(area)/\(full?.urlEncoded ?? path.urlEncoded)"
    }
}
