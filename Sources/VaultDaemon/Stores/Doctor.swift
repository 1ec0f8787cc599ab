#if canImport(Glibc)
import Glibc
#endif
import VaultCore
import VaultCrypto
import VaultProtocol
import VaultStores
import VaultSystem

/// `vaultctl doctor`: checks each store, says what works, what does not and why.
struct Doctor {
    let catalog: StoreCatalog
    let active: any VaultStore
    let activeReason: String
    /// Whether vaultd serves the Secret Service itself, and why (or why not); how its callers
    /// are tied to processes, once one called.
    let provider: (serving: Bool, reason: String)
    var callerBinding: String?

    func run() -> DoctorBody {
        var checks: [CheckBody] = []
        let secretServiceWorks = checkSecretService(into: &checks)
        let fileWorks = checkFileStore(into: &checks)
        let selected = active.kind
        return DoctorBody(
            selected: selected.rawValue, selectedReason: activeReason,
            selectedWorks: selected == .file ? fileWorks : secretServiceWorks, checks: checks)
    }

    private func checkSecretService(into checks: inout [CheckBody]) -> Bool {
        func add(_ name: String, _ ok: Bool, _ detail: String) -> Bool {
            checks.append(CheckBody(store: StoreKind.secretService.rawValue, name: name, ok: ok, detail: detail))
            return ok
        }
        let environment = catalog.configuration.environment
        // Informational: not serving (another provider, no file store, off) is no failure.
        _ = add("vaultd as provider", true, provider.serving ? "vaultd serves org.freedesktop.secrets: \(provider.reason)" : "not serving: \(provider.reason)")
        if provider.serving {
            _ = add("D-Bus callers", true, callerBinding ?? "no D-Bus client has called yet")
            // Probing would be vaultd asking itself, with the store held for this check.
            return add("service and default collection", false, "the Secret Service on this bus is vaultd itself, serving the file store; it is not a store of its own")
        }
        if let missing = StoreSelector.missingBus(environment) {
            return add("session bus", false, missing)
        }
        _ = add("session bus", true, environment["DBUS_SESSION_BUS_ADDRESS"] ?? "\(environment["XDG_RUNTIME_DIR"] ?? "")/bus")
        // A store object of its own for the probe, bounded more tightly; libsecret shares the connection.
        let store = catalog.secretServiceStore(timeout: min(catalog.configuration.secretServiceTimeout, 3))
        do {
            try store.probe()
            _ = add("service and default collection", true, "org.freedesktop.secrets answers and has a default collection")
        } catch {
            return add("service and default collection", false, "\(error)")
        }
        let status = store.status()
        if status.isLocked {
            return add("unlocked", false, "the default collection is locked: run 'vaultctl unlock' or unlock it from the desktop")
        }
        _ = add("unlocked", true, "the default collection is unlocked")
        // Other tools' items: reported, and not counted against the store working.
        var findings: [String] = []
        if status.duplicateCount > 0 {
            findings.append("\(status.duplicateCount) duplicate item(s): another tool (Python keyring, say) wrote its own item under a name vault uses; vault reads the newest and writes all, and 'vaultctl set' or 'vaultctl migrate' makes them one")
        }
        if status.unaddressableCount > 0 {
            findings.append("\(status.unaddressableCount) item(s) with a 'service' attribute but no usable account (empty, missing, too long, or a control character): vault cannot read or move them; 'vaultctl list' shows them and why")
        }
        _ = add("items", findings.isEmpty, findings.isEmpty ? "\(status.itemCount ?? 0) item(s), each addressable by service and account" : findings.joined(separator: "; "))
        let failure = probeFailure(store)
        return add("write, read, delete", failure == nil, failure ?? Doctor.probeSucceeded)
    }

    private func checkFileStore(into checks: inout [CheckBody]) -> Bool {
        func add(_ name: String, _ ok: Bool, _ detail: String) -> Bool {
            checks.append(CheckBody(store: StoreKind.file.rawValue, name: name, ok: ok, detail: detail))
            return ok
        }
        let path = catalog.configuration.vaultFilePath
        let directory = FileSystem.parentDirectory(of: path)
        var ok = true
        if let status = try? FileStatus.of(directory) {
            let safe = status.owner == FileSystem.currentUserID && status.permissions & 0o022 == 0
            ok = add("directory", safe, "\(directory): mode \(String(status.permissions, radix: 8)), owner uid \(status.owner)"
                        + (safe ? "" : "; run 'chmod 700 \(directory)'")) && ok
        } else {
            _ = add("directory", true, "\(directory) does not exist yet; it is created 0700 on first use")
        }
        if let status = try? FileStatus.of(path) {
            let safe = status.isRegularFile && status.owner == FileSystem.currentUserID && status.permissions & 0o077 == 0
            ok = add("vault file", safe, "\(path): \(status.size) bytes, mode \(String(status.permissions, radix: 8))"
                        + (safe ? "" : "; run 'chmod 600 \(path)'")) && ok
        } else {
            _ = add("vault file", true, "\(path) does not exist yet; the first unlock creates it")
        }
        if let source = catalog.configuration.passphraseSource {
            _ = add("passphrase source", true, "\(source): vaultd unlocks itself at start")
        } else {
            _ = add("passphrase source", true, "none configured: vaultd starts locked until 'vaultctl unlock' (set VAULT_PASSPHRASE_FILE or a systemd credential to unlock at start)")
        }
        guard active.kind == .file else {
            _ = add("in use", true, "not the store in use; items are not probed")
            return ok
        }
        let status = active.status()
        if status.isLocked {
            return add("unlocked", false, "locked: run 'vaultctl unlock'")
        }
        _ = add("unlocked", true, "unlocked, \(status.itemCount ?? 0) item(s)")
        let failure = probeFailure(active)
        return add("write, read, delete", failure == nil, failure ?? Doctor.probeSucceeded) && ok
    }

    static let probeSucceeded = "a probe item was written, read back identical and deleted"

    /// Writes, reads back and deletes a probe item; nil when all of that worked.
    private func probeFailure(_ store: any VaultStore) -> String? {
        do {
            let key = try ItemKey(service: "vault-doctor", account: "probe-\(getpid())")
            let secret = try SecretBytes(count: 24) { try SecureRandom.fill($0) }
            try store.set(key, secret: secret, changes: ItemChanges(label: "vault doctor probe (safe to delete)"))
            defer { try? store.delete(key) }
            guard try store.get(key).secret == secret else { return "the probe item came back different" }
            return nil
        } catch {
            return "\(error)"
        }
    }
}
