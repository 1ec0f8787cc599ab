public struct CheckBody: Codable, Sendable, Equatable {
    /// "secret-service" or "file".
    public var store: String
    public var name: String
    public var ok: Bool
    public var detail: String

    public init(store: String, name: String, ok: Bool, detail: String) {
        self.store = store
        self.name = name
        self.ok = ok
        self.detail = detail
    }
}
