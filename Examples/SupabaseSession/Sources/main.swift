// Signs in once with vaultctl, then from Swift reads the session and calls an endpoint with a
// fresh token; vaultd does every refresh, for every process of the user.
//
//   vaultctl login supabase --url "$SUPABASE_URL" --anon-key "$SUPABASE_ANON_KEY" \
//       --email you@example.com --service com.example.notes
//   vault-supabase-example com.example.notes you@example.com "$SUPABASE_URL/rest/v1/notes?select=*"
//
// SUPABASE_URL and SUPABASE_ANON_KEY come from the environment (the anon key is also sent as
// Supabase's `apikey` header). A supabase-swift program would pass the same storage as
// `storage:` after `extension VaultAuthStorage: AuthLocalStorage {}` (see docs/swift.md).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import VaultClient
import VaultTokenSource

let arguments = CommandLine.arguments
let environment = ProcessInfo.processInfo.environment
guard arguments.count == 4, let endpoint = URL(string: arguments[3]),
      let projectURL = environment["SUPABASE_URL"], let anonKey = environment["SUPABASE_ANON_KEY"] else {
    FileHandle.standardError.write(Data("usage: SUPABASE_URL=... SUPABASE_ANON_KEY=... vault-supabase-example SERVICE ACCOUNT ENDPOINT\n".utf8))
    exit(2)
}
let service = arguments[1], account = arguments[2]

/// What the program needs of supabase-swift's `Session`.
struct Session: Decodable {
    struct User: Decodable { var id: String; var email: String? }
    var expiresAt: Double
    var user: User
}

func fail(_ error: any Error) -> Never {
    // VaultSessionError says what the user must do; it never carries a token.
    switch error as? VaultSessionError {
    case .signInRequired?: FileHandle.standardError.write(Data("sign in first: vaultctl login supabase ... --service \(service)\n".utf8))
    case .locked?: FileHandle.standardError.write(Data("the vault is locked: run 'vaultctl unlock'\n".utf8))
    default: FileHandle.standardError.write(Data("\(error)\n".utf8))
    }
    exit(1)
}

// 1. The session, as supabase-swift reads it from its storage (tokens fresh from vaultd).
let storage = VaultAuthStorage(name: service, supabaseURL: projectURL, anonKey: anonKey)
do {
    guard let data = try storage.retrieve(key: account) else { fail(VaultSessionError.signInRequired("no session")) }
    let session = try JSONDecoder().decode(Session.self, from: data)
    print("signed in as \(session.user.email ?? session.user.id); token valid until \(Date(timeIntervalSince1970: session.expiresAt))")
} catch {
    fail(error)
}

// 2. A request with a fresh token; on a 401, one refresh and one retry.
let api = VaultTokenSource(service: service, account: account)
var request = URLRequest(url: endpoint)
request.setValue(anonKey, forHTTPHeaderField: "apikey")
do {
    let (data, response) = try await api.data(for: request)
    print("HTTP \((response as? HTTPURLResponse)?.statusCode ?? 0), \(data.count) bytes")
} catch {
    fail(error)
}
