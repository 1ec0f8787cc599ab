// One process of a program that keeps its supabase-swift session in VaultAuthStorage, for the
// end-to-end tests: for SECONDS seconds it reads the session as supabase-swift would (retrieve
// "supabase.auth.token", decode), checks that its access token is current (not expired, give or
// take 2 s for a loaded machine: the fixture's tokens live 2 s), and counts the distinct access
// tokens it saw. Prints {"reads":N,"tokens":M} on success; on the first failure
// prints the error's sentence (never a token) on stderr and exits 1.
//
// Usage: vault-auth-storage-tool NAME SUPABASE_URL ANON_KEY SECONDS MIN_LIFETIME
// The socket is found as VaultClient finds it (VAULT_SOCKET, XDG_RUNTIME_DIR, ...).
import Foundation
import VaultClient

let arguments = CommandLine.arguments
guard arguments.count == 6, let seconds = Double(arguments[4]), let minimum = Double(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: vault-auth-storage-tool NAME SUPABASE_URL ANON_KEY SECONDS MIN_LIFETIME\n".utf8))
    exit(2)
}

struct Session: Decodable {
    var accessToken: String
    var refreshToken: String
    var expiresAt: Double
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let storage = VaultAuthStorage(name: arguments[1], supabaseURL: arguments[2], anonKey: arguments[3], minimumLifetime: minimum, autostart: false)
let deadline = Date().addingTimeInterval(seconds)
var reads = 0
var tokens = Set<String>()
while Date() < deadline {
    let data: Data?
    do {
        data = try storage.retrieve(key: "supabase.auth.token")
    } catch {
        fail("retrieve failed: \(error)")
    }
    guard let data else { fail("no session is stored") }
    guard let session = try? JSONDecoder().decode(Session.self, from: data) else { fail("the stored session does not decode as a supabase-swift Session") }
    if session.expiresAt + 2 <= Date().timeIntervalSince1970 { fail("retrieve answered an expired session") }
    reads += 1
    tokens.insert(session.accessToken)
    usleep(50_000)
}
print(#"{"reads":\#(reads),"tokens":\#(tokens.count)}"#)
