import VaultCore

/// A secret reference, `vault://SERVICE[/ACCOUNT][?field=NAME]`: what `vaultctl read`, `run` and
/// `inject` resolve (`VaultConnection.resolve`). The form is fixed, for scripts and docs to rely on:
///
/// - SERVICE and ACCOUNT are an item's names, each percent-encoded where it holds `/`, `?`, `%`,
///   `#`, `&`, a space or anything outside printable ASCII (`%2F`, `%20`, `%C3%A9`); raw UTF-8
///   letters are accepted too. Decoded, each must be a valid name (`ItemKey.validate`).
/// - Without ACCOUNT it names the one item or session of SERVICE.
/// - The query may hold only `field=NAME`, once: a session's `access_token` (the default),
///   `token_type` or `expires_at`; a key of an item whose secret is a JSON object.
///
/// Anything else is refused with `bad_request` and a message naming the reference (control
/// characters replaced, long ones shortened: a reference is read from hostile environments and files).
public struct SecretReference: Sendable, Hashable, CustomStringConvertible {
    public static let scheme = "vault://"
    /// The longest reference accepted, in UTF-8 bytes: two names at their limit, fully
    /// percent-encoded, and a field.
    public static let maxLength = 4 * 1024
    public static let form = "vault://SERVICE[/ACCOUNT][?field=NAME]"

    public let service: String
    public let account: String?
    public let field: String?
    /// For a remote secret (`kv://REMOTE/PATH`): the remote, path and version. `service` is then
    /// `kv://REMOTE` and `account` the path, as access rules and the audit log name it.
    public let remote: RemoteTarget?
    /// The reference as written.
    public let text: String

    /// Whether `value` is meant as a reference (it starts with `vault://` or `kv://`); whether it
    /// is a valid one is for `init(parsing:)` to say.
    public static func isReference(_ value: String) -> Bool { value.hasPrefix(scheme) || value.hasPrefix(RemoteTarget.scheme) }

    init(text: String, service: String, account: String?, field: String?, remote: RemoteTarget?) {
        self.text = text
        self.service = service
        self.account = account
        self.field = field
        self.remote = remote
    }

    public init(parsing text: String) throws(VaultClientError) {
        if text.hasPrefix(RemoteTarget.scheme) {
            self = try Self(parsingRemote: text)
            return
        }
        self.text = text
        remote = nil
        let shown = Self.shown(text)
        func refuse(_ why: String) -> VaultClientError {
            VaultClientError(code: .badRequest, message: "\(shown) is not a valid reference: \(why); the form is \(Self.form)")
        }
        guard text.utf8.count <= Self.maxLength else { throw refuse("it is longer than \(Self.maxLength) bytes") }
        guard text.hasPrefix(Self.scheme) else { throw refuse("it does not start with \(Self.scheme)") }
        if let problem = Self.characterProblem(text) { throw refuse(problem) }
        let rest = text.dropFirst(Self.scheme.count)
        let (path, query) = rest.firstIndex(of: "?").map { (rest[..<$0], Optional(rest[rest.index(after: $0)...])) } ?? (rest, nil)
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2 else { throw refuse("it has more than SERVICE and ACCOUNT (write '/' inside a name as %2F)") }
        guard parts.allSatisfy({ !$0.isEmpty }) else {
            throw refuse(parts.first?.isEmpty ?? true ? "the service is empty" : "the account is empty")
        }
        let names = try parts.enumerated().map { (index, part) throws(VaultClientError) -> String in
            let what = index == 0 ? "service" : "account"
            guard let name = Self.percentDecoded(part) else { throw refuse("the \(what) has a bad percent-encoding (% must start %XX, of UTF-8)") }
            do {
                try ItemKey.validate(name, field: "the " + what)
            } catch {
                throw refuse("\(error)")
            }
            return name
        }
        service = names[0]
        account = names.count > 1 ? names[1] : nil

        var field: String?
        if let query {
            guard !query.isEmpty else { throw refuse("the query after '?' is empty") }
            for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
                let key = pair.prefix { $0 != "=" }
                guard key == "field" else {
                    throw refuse(key.isEmpty ? "the query has an empty part" : "'\(Self.shown(String(key), quoted: false))' is not a query key; only field=NAME is")
                }
                guard field == nil else { throw refuse("field is given twice") }
                guard let value = Self.percentDecoded(pair.dropFirst(key.count + 1)), pair.count > key.count + 1,
                      !value.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                    throw refuse("field needs a name: ?field=NAME, percent-encoded, without control characters")
                }
                field = value
            }
        }
        self.field = field
    }

    /// The reference for messages: control characters replaced, at most 200 characters, quoted.
    public var description: String { Self.shown(text) }

    /// `%XX` decoded, the result UTF-8; nil when a `%` does not start two hex digits or the bytes
    /// are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.popFirst().flatMap(hexValue), let low = iterator.popFirst().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Why `text` cannot be a reference of either scheme for a character it holds: a control
    /// character, a space or '#' (which a reference writes percent-encoded); nil when none.
    static func characterProblem(_ text: String) -> String? {
        guard let bad = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == " " || $0 == "#" }) else { return nil }
        return bad == " " ? "it holds a space (write %20)" : bad == "#" ? "it holds '#' (write %23)" : "it holds a control character"
    }

    static func shown(_ text: String, quoted: Bool = true) -> String {
        var safe = text.replacingControlCharacters()
        if safe.count > 200 { safe = String(safe.prefix(200)) + "..." }
        return quoted ? "'\(safe)'" : safe
    }
}
