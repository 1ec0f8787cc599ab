import VaultCore

/// How git-credential-libsecret names this credential (its `make_attr_list`): `protocol`,
/// `server` (the host without a port), `port` (only when git sent one), `object` (the path, only
/// when git sent one) and `user`. vault matches them exactly: an attribute git did not send must be
/// absent from the item (nil), so a credential for another port or path is never given out.
extension GitCredential {
    /// nil when git sent no protocol or host, or a host vault cannot split.
    func libsecretAttributes(user: String?) -> [String: String?]? {
        guard let scheme = `protocol`, let host, let (server, port) = Self.splitPort(host), !server.isEmpty else { return nil }
        var attributes: [String: String?] = ["protocol": scheme, "server": server, "port": port, "object": path]
        if let user { attributes["user"] = .some(user) }
        return attributes
    }

    /// The label git-credential-libsecret gives its items: `Git: PROTOCOL://HOST[:PORT]/PATH`.
    var libsecretLabel: String {
        "Git: \(`protocol` ?? "")://\(host ?? "")/\(path ?? "")"
    }

    /// `HOST[:PORT]` as the host and the port's canonical digits (nil when there is none). A
    /// colon followed by anything but a port number (1–65535) is part of the host only when the
    /// host is a bracketed IPv6 address; otherwise nil.
    static func splitPort(_ host: String) -> (server: String, port: String?)? {
        guard let colon = host.lastIndex(of: ":") else { return (host, nil) }
        let server = String(host[..<colon])
        if server.hasPrefix("[") && !server.hasSuffix("]") { return (host, nil) }  // [v6] without a port
        guard let port = UInt16(host[host.index(after: colon)...]), port > 0, !server.contains(":") || server.hasSuffix("]") else { return nil }
        return (server, String(port))
    }
}
