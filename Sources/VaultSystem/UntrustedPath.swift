/// A path the vault refuses to use because someone other than the user could control what is
/// there: a symbolic link, a file of the wrong kind, another owner, permissions that let others in.
/// `description` names the path, what was found (the owner, the mode) and what to do.
public struct UntrustedPath: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The path itself is a symbolic link (examined with `lstat` / `O_NOFOLLOW`).
        case symbolicLink
        /// Not the kind of file expected: `found` is "a FIFO", "a directory", "not a directory", ...
        case wrongKind(found: String, expected: String)
        /// Owned by another user.
        case foreignOwner
        /// A private directory that grants group or others any access.
        case openToOthers
        /// A directory above that others may write to (only root-owned sticky ones, like /tmp, are fine).
        case writableByOthers
        /// A private file whose mode is not exactly `expected`.
        case wrongMode(expected: UInt32)
    }

    public let path: String
    public let reason: Reason
    /// The owner found, when the path could be examined.
    public let owner: UInt32?
    /// The permission bits found, when the path could be examined.
    public let mode: UInt32?
    /// The user the path should belong to.
    public let user: UInt32

    public init(path: String, reason: Reason, owner: UInt32? = nil, mode: UInt32? = nil, user: UInt32 = FileSystem.currentUserID) {
        self.path = path
        self.reason = reason
        self.owner = owner
        self.mode = mode
        self.user = user
    }

    private var found: String {
        var parts: [String] = []
        if let owner { parts.append("owned by uid \(owner)") }
        if let mode { parts.append("mode \(String(mode, radix: 8))") }
        return parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")"
    }

    public var description: String {
        switch reason {
        case .symbolicLink:
            "\(path) is a symbolic link\(found), which someone could re-point: remove it and use a real directory or file"
        case .wrongKind(let kind, let expected):
            "\(path) is \(kind)\(found), not \(expected): move it away"
        case .foreignOwner:
            "\(path) is owned by uid \(owner.map(String.init) ?? "?"), not by you (uid \(user)), so that user controls it: have it removed (or remove it as root), or choose a place of your own with VAULT_SOCKET"
        case .openToOthers:
            "\(path) has mode \(mode.map { String($0, radix: 8) } ?? "?") and is yours, but group or others may enter it: run 'chmod 700 \(path)'"
        case .writableByOthers:
            "\(path)\(found) may be written by group or others, who could replace what is inside it: run 'chmod go-w \(path)' or choose another place with VAULT_SOCKET"
        case .wrongMode(let expected):
            "\(path) has mode \(mode.map { String($0, radix: 8) } ?? "?"), not \(String(expected, radix: 8)): run 'chmod \(String(expected, radix: 8)) \(path)'"
        }
    }
}
