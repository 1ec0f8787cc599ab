import VaultCore

extension GitCredential {
    /// The service of the vault item for this credential: `git:PROTOCOL://HOST[:PORT][/PATH]`,
    /// with the path only when git sent one (`credential.useHttpPath`). nil when git sent no
    /// protocol or no host (a `cert` prompt, say): vault keeps nothing for those.
    func itemService() throws(HelperFailure) -> String? {
        guard let url else { return nil }
        let service = "git:" + url
        try Self.checkName(service, what: "the URL")
        return service
    }

    /// `PROTOCOL://HOST[/PATH]`, as `git config --get-urlmatch` matches it.
    var url: String? {
        guard let scheme = `protocol`, let host, !host.isEmpty else { return nil }
        let path = path.map { $0.hasPrefix("/") ? String($0.dropFirst()) : $0 } ?? ""
        return path.isEmpty ? "\(scheme)://\(host)" : "\(scheme)://\(host)/\(path)"
    }

    /// The item's account: the username, checked like every item name.
    func checkedUsername() throws(HelperFailure) -> String? {
        guard let username, !username.isEmpty else { return nil }
        try Self.checkName(username, what: "the username")
        return username
    }

    static func checkName(_ name: String, what: String) throws(HelperFailure) {
        do {
            try ItemKey.validate(name, field: what)
        } catch {
            throw HelperFailure("vault cannot keep this credential: \(error)")
        }
    }
}
