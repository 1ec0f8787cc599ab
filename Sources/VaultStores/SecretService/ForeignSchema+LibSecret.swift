import CLibSecret
import VaultCore

extension ForeignSchema {
    /// The libsecret schema vault creates items with (CLibSecret's shim.h).
    var libsecretSchema: UnsafePointer<SecretSchema> {
        switch self {
        case .git: vault_git_schema()
        case .docker: vault_docker_schema()
        }
    }
}
