import VaultCore
import VaultStores

/// The Secret Service front door (`--secret-service-provider`): whether to open it, opened.
extension Daemon {
    /// `on` mode could not serve: vaultd refuses to start, saying why.
    struct ProviderRefusal: Error, CustomStringConvertible {
        let reason: String
        var description: String {
            "cannot serve the Secret Service (--secret-service-provider on): \(reason); use auto to start without it, or off"
        }
    }

    /// Serves `org.freedesktop.secrets` when the mode allows and it is possible: a session bus,
    /// the file store in use (a Secret Service store already has a provider), and the name
    /// free. Records the outcome for `status`; throws only in `on` mode.
    func startSecretServiceProvider() throws {
        let mode = configuration.secretServiceProvider
        let origin = configuration.secretServiceProviderOrigin
        let status = dispatcher.secretServiceProvider
        func without(_ reason: String) throws {
            if mode == .on { throw ProviderRefusal(reason: reason) }
            status.set(serving: false, reason: "\(mode.rawValue) (\(origin)): \(reason)")
            logger.info("not serving the Secret Service: \(reason)")
        }
        guard mode != .off else {
            status.set(serving: false, reason: "off (\(origin))")
            return
        }
        guard let address = Self.sessionBusAddress(configuration.environment) else {
            return try without(StoreSelector.missingBus(configuration.environment) ?? "there is no session bus")
        }
        let kind = store.current.store.kind
        guard kind == .file else {
            return try without("vault uses the \(kind.rawValue) store, whose provider serves the Secret Service already")
        }
        let provider = SecretServiceProvider(items: dispatcher.items, logger: logger, promptTimeout: configuration.secretServicePromptTimeout,
            vaultFile: configuration.vaultFilePath, trustBusPIDs: configuration.trustBusPIDs, status: status)
        do {
            try provider.start(address: address)
        } catch {
            return try without("\(error)")
        }
        dispatcher.itemChanges.listen { [provider] change in provider.announce(change) }
        status.set(serving: true, reason: "\(mode.rawValue) (\(origin)): vaultd owns \(SecretServiceProvider.busName) on the session bus and serves the file store's items")
        logger.info("serving the Secret Service as \(SecretServiceProvider.busName) on the session bus")
    }

    /// DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus when that is a socket.
    static func sessionBusAddress(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard StoreSelector.missingBus(environment) == nil, let runtime = environment["XDG_RUNTIME_DIR"] else { return nil }
        return "unix:path=" + runtime + "/bus"
    }
}
