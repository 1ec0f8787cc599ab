import VaultCore
internal import VaultProtocol

/// Other credential helpers' items (git-credential-libsecret's, docker-credential-secretservice's;
/// `ForeignSchema`), which only the Secret Service store keeps: with another store the lists are
/// empty, `foreignItem` is nil and nothing is written. `matching` names items by key attributes,
/// a nil value meaning "has no such attribute" (`ForeignItemStore`).
extension VaultConnection {
    public func foreignItems(_ schema: ForeignSchema, matching: [String: String?]) throws(VaultClientError) -> [ForeignItem] {
        try foreign(perform(.foreignList(ForeignQuery(schema: schema.rawValue, attributes: matching))))
    }

    /// The newest matching item with its secret, nil when none matches.
    public func foreignItem(_ schema: ForeignSchema, matching: [String: String?]) throws(VaultClientError) -> (item: ForeignItem, secret: SecretBytes)? {
        guard let body = try perform(.foreignGet(ForeignQuery(schema: schema.rawValue, attributes: matching))).item else { return nil }
        guard let secret = body.secret else { throw .malformedAnswer("the other helper's item has no readable secret") }
        return (try ForeignItem(wire: body), secret)
    }

    /// Gives the matching items this secret, or creates one; answers the items written (none
    /// when the store keeps no other helpers' items).
    @discardableResult
    public func setForeignItem(_ schema: ForeignSchema, attributes: [String: String?], label: String, secret: SecretBytes) throws(VaultClientError) -> [ForeignItem] {
        try foreign(perform(.foreignSet(ForeignWrite(schema: schema.rawValue, attributes: attributes, label: label, secret: secret))))
    }

    /// Deletes every matching item; answers those deleted.
    @discardableResult
    public func deleteForeignItems(_ schema: ForeignSchema, matching: [String: String?]) throws(VaultClientError) -> [ForeignItem] {
        try foreign(perform(.foreignDelete(ForeignQuery(schema: schema.rawValue, attributes: matching))))
    }

    private func foreign(_ result: ResultBody) throws(VaultClientError) -> [ForeignItem] {
        var items: [ForeignItem] = []
        for body in result.foreign ?? [] { items.append(try ForeignItem(wire: body)) }
        return items
    }
}
