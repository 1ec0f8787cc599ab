#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import VaultClient
import VaultCore

/// The one place a credential helper reads, writes, lists and deletes its credentials in a
/// remote folder (`RemoteFolder`), through vaultd: served from its cache (offline up to the
/// remote's `--max-age`), written with check-and-set, guarded and audited as `kv://` secrets.
struct RemoteCredentials {
    let vault: VaultConnection
    let folder: RemoteFolder

    /// The fields of the credential `names` names; nil when there is none (or it was deleted).
    /// `refresh` asks the engine even when the cached copy is fresh: before a write, so the
    /// check-and-set is on the engine's latest version.
    func fields(_ names: [String], refresh: Bool = false) throws(HelperFailure) -> [String: String]? {
        let path = try folder.path(names)
        let read = try HelperFailure.vault { () throws(VaultClientError) -> RemoteSecret? in
            do throws(VaultClientError) {
                return try vault.readRemote(remote: folder.remote, path: path, refresh: refresh)
            } catch {
                if error.code == .notFound, try remoteExists() { return nil }
                throw error
            }
        }
        guard let read else { return nil }
        let decoded = read.value.withUnsafeBytes { try? JSONDecoder().decode([String: String].self, from: Data($0)) }
        guard let decoded else {
            throw HelperFailure("kv://\(folder.remote)/\(path) holds fields that are not all strings; it was not written by a vault credential helper")
        }
        return decoded
    }

    /// Makes `fields` the credential's fields, unless they already are; check-and-set on the
    /// version just read, so a credential another machine wrote meanwhile is a conflict.
    func write(_ names: [String], _ fields: [String: String]) throws(HelperFailure) {
        let path = try folder.path(names)
        guard try self.fields(names, refresh: true) != fields else { return }
        try HelperFailure.vault { () throws(VaultClientError) in
            try vault.writeRemote(remote: folder.remote, path: path, fields: fields)
        }
    }

    /// KV v2's soft delete; false when there was nothing to delete.
    @discardableResult
    func delete(_ names: [String]) throws(HelperFailure) -> Bool {
        let path = try folder.path(names)
        return try HelperFailure.vault { () throws(VaultClientError) -> Bool in
            do throws(VaultClientError) {
                try vault.deleteRemote(remote: folder.remote, path: path)
                return true
            } catch {
                if error.code == .notFound, try remoteExists() { return false }
                throw error
            }
        }
    }

    /// Whether vaultd knows the remote: `not_found` is then about the credential, else about
    /// the remote, which is the user's mistake to report, not a credential to find missing.
    private func remoteExists() throws(VaultClientError) -> Bool {
        try vault.remotes().contains { $0.name == folder.remote }
    }

    /// The names of the credentials kept directly under `names` (folders and names that do not
    /// decode left out), sorted; empty when the folder does not exist.
    func names(under names: [String]) throws(HelperFailure) -> [String] {
        let path = try folder.folderPath(names)
        let listed = try HelperFailure.vault { () throws(VaultClientError) -> [String] in
            do throws(VaultClientError) {
                return try vault.listRemote(remote: folder.remote, path: path)
            } catch {
                if error.code == .notFound, try remoteExists() { return [] }
                throw error
            }
        }
        return listed.compactMap(RemoteFolder.name(listed:)).sorted()
    }
}
