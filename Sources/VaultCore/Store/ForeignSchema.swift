/// The item schemas of other credential helpers that vault reads and writes beside its own, so
/// that users switch to vault's helpers without re-entering anything (docs/integrations.md,
/// docs/protocol.md): git-credential-libsecret's (`git`) and docker-credential-secretservice's
/// (`docker`). The Secret Service keeps such items, and so does vault's own store when vaultd
/// serves the Secret Service (`ForeignItemStore`).
///
/// A request names items by these attributes only (`keyAttributes`); an answer carries only these
/// attributes. Items written by other programs are hostile input: an item whose schema is not one
/// of `schemaNames`, or one of whose key attributes fails `problem(name:value:)`, is never matched.
public enum ForeignSchema: String, Sendable, CaseIterable {
    case git, docker

    /// The longest attribute value vault accepts from a request or an item.
    public static let maxValueBytes = 1024
    /// The most items one answer lists (newest first).
    public static let maxItems = 500

    /// The attributes that name an item, in the other helper's own terms.
    public var keyAttributes: [String] {
        switch self {
        case .git: ["user", "object", "protocol", "port", "server"]
        case .docker: ["label", "server", "username", "docker_cli"]
        }
    }

    /// The attributes a written item must have.
    public var requiredAttributes: [String] {
        switch self {
        case .git: ["protocol", "server", "user"]
        case .docker: keyAttributes
        }
    }

    /// The attribute holding the item's user name.
    public var accountAttribute: String {
        switch self {
        case .git: "user"
        case .docker: "username"
        }
    }

    /// The `xdg:schema` values of the items vault reads. git's helper wrote
    /// `org.gnome.keyring.NetworkPassword` items up to git 2.44 (Debian 12's 2.39 still does) and
    /// `org.git.Password` items since, finding both.
    public var schemaNames: [String] {
        switch self {
        case .git: ["org.git.Password", "org.gnome.keyring.NetworkPassword"]
        case .docker: ["io.docker.Credentials"]
        }
    }

    /// The schema of the items vault creates: for git the older name, which every version of
    /// git-credential-libsecret finds (the newer ones search ignoring the schema's name).
    public var writtenSchemaName: String {
        switch self {
        case .git: "org.gnome.keyring.NetworkPassword"
        case .docker: "io.docker.Credentials"
        }
    }

    /// The schema named `name` on the wire.
    public static func named(_ name: String) throws -> ForeignSchema {
        guard let schema = ForeignSchema(rawValue: name) else {
            throw VaultError.invalidInput("unknown foreign schema '\(name.replacingControlCharacters())'; known: \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return schema
    }

    /// Why `value` cannot be the attribute `name`, or nil: over `maxValueBytes`, a control
    /// character, and for git's `port` anything but a port number as git's helper writes it.
    public func problem(name: String, value: String) -> String? {
        if value.utf8.count > Self.maxValueBytes { return "attribute '\(name)' is over \(Self.maxValueBytes) bytes" }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "attribute '\(name)' contains a control character"
        }
        if self == .git && name == "port" {
            guard let port = UInt16(value), port > 0, String(port) == value else { return "attribute 'port' is not a port number" }
        }
        return nil
    }

    /// Checks the attributes of a request: only key attributes, valid values, at least one given
    /// (a value, not null: null means "the item has no such attribute"), and for a write every
    /// required one, non-empty.
    public func validate(_ attributes: [String: String?], writing: Bool) throws {
        for (name, value) in attributes {
            guard keyAttributes.contains(name) else {
                throw VaultError.invalidInput("'\(name.replacingControlCharacters())' is not an attribute of \(rawValue) items; they have \(keyAttributes.joined(separator: ", "))")
            }
            if let value, let problem = problem(name: name, value: value) { throw VaultError.invalidInput(problem) }
        }
        guard attributes.values.contains(where: { $0 != nil }) else {
            throw VaultError.invalidInput("give at least one attribute with a value")
        }
        if writing {
            for name in requiredAttributes where (attributes[name] ?? nil)?.isEmpty ?? true {
                throw VaultError.invalidInput("a written \(rawValue) item needs the attribute '\(name)'")
            }
        }
    }
}
