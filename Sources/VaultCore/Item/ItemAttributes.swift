/// The Secret Service's view of items: every item has a set of string attributes (name → value),
/// of which `service` and `username` are vault's key (`ItemKey`), and a secret with a content type.
///
/// `ItemInfo.attributes` holds the *other* attributes (an item written by Python keyring has
/// `application`, one by docker-credential-secretservice has `server` and `docker_cli`); the key's
/// two are never in it. Items created over vault's Secret Service front door without usable
/// `service` and `username` attributes are kept under `ItemKey.attributeOnlyService` with an
/// account vault makes up; their attributes are then exactly `ItemInfo.attributes`, which may
/// hold a lone `service` or `username` (docker-credential-secretservice writes `username`).
public enum ItemAttributes {
    /// The attributes that are vault's key, not kept in `ItemInfo.attributes`.
    public static let keyNames: Set<String> = ["service", "username"]
    /// The content type of a secret nobody gave one.
    public static let defaultContentType = "text/plain"

    /// Why `attributes` cannot be an item's other attributes, or nil: more than
    /// `ItemLimits.maxAttributes`, a name empty or over `ItemLimits.maxAttributeNameBytes`, a value
    /// over `ItemLimits.maxAttributeValueBytes`, a control character in either, or one of
    /// `keyNames` unless the item's key is made up (`ItemKey.isAttributeOnly`).
    public static func problem(with attributes: [String: String], keyIsMadeUp: Bool = false) -> String? {
        if attributes.count > ItemLimits.maxAttributes {
            return "\(attributes.count) attributes; the limit is \(ItemLimits.maxAttributes)"
        }
        for (name, value) in attributes {
            if name.isEmpty { return "an attribute name must not be empty" }
            if name.utf8.count > ItemLimits.maxAttributeNameBytes {
                return "an attribute name is \(name.utf8.count) bytes; the limit is \(ItemLimits.maxAttributeNameBytes)"
            }
            if name.containsControlCharacter { return "an attribute name must not contain control characters" }
            if keyNames.contains(name), !keyIsMadeUp { return "'\(name)' is part of the item's key, not one of its other attributes" }
            if value.utf8.count > ItemLimits.maxAttributeValueBytes {
                return "attribute '\(name)' is \(value.utf8.count) bytes; the limit is \(ItemLimits.maxAttributeValueBytes)"
            }
            if value.containsControlCharacter { return "attribute '\(name)' must not contain control characters" }
        }
        return nil
    }

    /// Why `contentType` cannot be a secret's content type, or nil (1 to
    /// `ItemLimits.maxContentTypeBytes` bytes of printable ASCII).
    public static func problem(withContentType contentType: String) -> String? {
        if contentType.isEmpty { return "the content type must not be empty" }
        if contentType.utf8.count > ItemLimits.maxContentTypeBytes {
            return "the content type is \(contentType.utf8.count) bytes; the limit is \(ItemLimits.maxContentTypeBytes)"
        }
        if !contentType.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) {
            return "the content type must be printable ASCII"
        }
        return nil
    }
}

extension ItemKey {
    /// The service of items created over the Secret Service API without a usable `service` and
    /// `username` (git's, Docker's, secret-tool's with other attributes): their account is an id
    /// vault makes up, and neither is one of their attributes.
    public static let attributeOnlyService = "vault.secret-service"

    /// Whether this key was made up for an item that only its attributes name.
    public var isAttributeOnly: Bool { service == Self.attributeOnlyService }
}

extension ItemInfo {
    /// Every attribute a Secret Service client sees: `attributes`, plus `service` and `username`
    /// from the key unless the key was made up (`ItemKey.isAttributeOnly`).
    public var secretServiceAttributes: [String: String] {
        if key.isAttributeOnly { return attributes }
        var all = attributes
        all["service"] = key.service
        all["username"] = key.account
        return all
    }

    /// Whether the item has every one of `attributes` with that value (the Secret Service's
    /// `SearchItems`); every item matches an empty set.
    public func matches(_ attributes: [String: String]) -> Bool {
        if attributes.isEmpty { return true }
        let all = secretServiceAttributes
        return attributes.allSatisfy { all[$0.key] == $0.value }
    }
}
