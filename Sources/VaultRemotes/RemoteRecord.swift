#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultCore

/// Everything vaultd keeps about a remote, stored as one item of vault's own
/// (`ItemKey.remote`), encrypted with the store: the settings, the credential that logs in
/// again, and the engine's current token.
public struct RemoteRecord: Codable, Sendable {
    public var settings: RemoteSettings
    /// The token, AppRole secret id or password (nil for JWT, which is read from its file).
    public var credential: String?
    public var token: EngineToken?

    public init(settings: RemoteSettings, credential: String?, token: EngineToken? = nil) {
        self.settings = settings
        self.credential = credential
        self.token = token
    }

    public func encoded() throws -> SecretBytes { try secretJSON() }

    public static func decoding(_ secret: SecretBytes, name: String) throws -> RemoteRecord {
        do {
            return try secret.withUnsafeBytes { try JSONDecoder().decode(RemoteRecord.self, from: Data($0)) }
        } catch {
            throw VaultError.internal("the record of remote '\(name)' cannot be read; remove it with 'vaultctl remote remove \(name)' and add it again")
        }
    }
}
