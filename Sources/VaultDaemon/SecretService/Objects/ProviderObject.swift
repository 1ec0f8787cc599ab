/// vault's own interface (vault.Provider) at the service's path: which vault file this provider
/// serves, so that another vaultd's `migrate` does not take it for a store of its own.
struct ProviderObject: BusObject {
    /// The interface has properties only.
    enum Method: RawRepresentable, CaseIterable {
        init?(rawValue: String) { nil }
        var rawValue: String { switch self {} }
    }

    static let interface = "vault.Provider"

    let vaultFile: String

    func call(_ method: Method, _ request: BusRequest) throws -> BusReply {
        switch method {}
    }

    func properties(at path: String) throws -> [(String, BusValue)] {
        guard path == SecretServicePath.service else { throw BusError.noSuchObject(path) }
        return [("VaultFile", .string(vaultFile))]
    }
}
