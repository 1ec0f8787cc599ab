// vaultctl: the command line for vaultd. Parses arguments and calls VaultClient.
#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore

let usage = """
    usage: vaultctl [--socket PATH] COMMAND [ARGS]

      get SERVICE ACCOUNT [--json]     print the secret (--json: with its metadata)
      set SERVICE ACCOUNT [--label L] [--comment C] [--raw]
                                       store a secret read from stdin or a prompt
      add SERVICE ACCOUNT [...]        like set, but fail when the item exists
      delete SERVICE ACCOUNT           remove an item
      list [SERVICE] [--json]          names and metadata, never secrets
      status [--json]                  daemon, store and lock state
      lock                             drop keys from vaultd's memory
      unlock                           unlock (prompt, or passphrase on stdin)
      passwd                           change the passphrase (prompts, or two lines on stdin)
      token SERVICE [ACCOUNT] [--min-ttl D] [--format raw|json|env|header|exec-credential]
                                       print a valid access token, refreshed when needed
      login oauth2 --token-endpoint URL --username NAME --service NAME [--client-id ID]
            [--client-secret-file F] [--scope S] [--revocation-endpoint URL]
      login oauth2 --device --device-endpoint URL --token-endpoint URL --service NAME [--client-id ID]
                                       sign in with a code approved on another device (RFC 8628)
      login supabase --url URL --anon-key KEY --email EMAIL [--service NAME]
                                       sign in and keep the session (password: prompt or stdin)
      login firebase --api-key KEY --email EMAIL --service NAME [--url EMULATOR]
      signup supabase|firebase ...     same options as login; the password is asked twice
      reset-password supabase|firebase ... --email EMAIL
      logout SERVICE [ACCOUNT]         sign out on the server, then remove the session
      session import SERVICE ACCOUNT [--provider P --url URL --anon-key KEY | --token-endpoint URL --client-id ID]
                                       adopt a session (JSON on stdin; flags fill in what it lacks)
      doctor [--json]                  check each store; exit 0 only when the one in use works
      migrate --to file|secret-service move every item to the other store, verified
      version, help

    Secrets are never taken from the command line. Exit codes: 0 ok, 1 error, 2 usage,
    3 not found, 4 locked or sign-in required, 5 vault unavailable, 6 duplicate.

    """

func finish(_ code: ExitCode, _ message: String? = nil) -> Never {
    if let message { Output.error(message) }
    exit(code.rawValue)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var socketPath: String?
// --socket is global and may come anywhere.
if let index = arguments.firstIndex(where: { $0 == "--socket" || $0.hasPrefix("--socket=") }) {
    if arguments[index] == "--socket" {
        guard index + 1 < arguments.count else { finish(.usage, "--socket needs a value") }
        socketPath = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
    } else {
        socketPath = String(arguments[index].dropFirst("--socket=".count))
        arguments.remove(at: index)
    }
}
guard let command = arguments.first else {
    Output.write(Array(usage.utf8), to: 2)
    exit(ExitCode.usage.rawValue)
}
let rest = Array(arguments.dropFirst())

let commands = Commands(vault: VaultConnection(socketPath: socketPath))
do {
    switch command {
    case "get":
        try commands.get(ParsedArguments(rest, valued: [], switches: ["json"]))
    case "set", "add":
        try commands.write(replacing: command == "set", ParsedArguments(rest, valued: ["label", "comment"], switches: ["raw"]))
    case "delete", "rm":
        try commands.delete(ParsedArguments(rest, valued: [], switches: []))
    case "list", "ls":
        try commands.list(ParsedArguments(rest, valued: [], switches: ["json"]))
    case "status":
        try commands.status(ParsedArguments(rest, valued: [], switches: ["json"]))
    case "lock":
        try commands.lock(ParsedArguments(rest, valued: [], switches: []))
    case "unlock":
        try commands.unlock(ParsedArguments(rest, valued: [], switches: []))
    case "passwd":
        try commands.passwd(ParsedArguments(rest, valued: [], switches: []))
    case "token":
        try commands.token(ParsedArguments(rest, valued: ["min-ttl", "format", "env-name"], switches: []))
    case "login", "signup":
        try commands.signIn(ParsedArguments(rest, valued: ["token-endpoint", "username", "client-id", "client-secret-file", "scope", "service",
                                                           "account", "url", "anon-key", "api-key", "email", "min-password-length", "revocation-endpoint",
                                                           "device-endpoint"], switches: ["device"]),
                            signingUp: command == "signup")
    case "reset-password":
        try commands.resetPassword(ParsedArguments(rest, valued: ["url", "anon-key", "api-key", "email"], switches: []))
    case "logout":
        try commands.logout(ParsedArguments(rest, valued: [], switches: []))
    case "session":
        guard rest.first == "import" else { finish(.usage, "session: use 'vaultctl session import SERVICE ACCOUNT'") }
        try commands.importSession(ParsedArguments(Array(rest.dropFirst()), valued: ["provider", "url", "anon-key", "api-key", "token-endpoint", "client-id"], switches: []))
    case "doctor":
        if try !commands.doctor(ParsedArguments(rest, valued: [], switches: ["json"])) { exit(ExitCode.failure.rawValue) }
    case "migrate":
        try commands.migrate(ParsedArguments(rest, valued: ["to"], switches: ["json"]))
    case "version", "--version":
        Output.line("vaultctl \(VaultVersion.string)")
    case "help", "--help", "-h":
        Output.write(Array(usage.utf8))
    default:
        finish(.usage, "unknown command '\(command)'; run 'vaultctl help'")
    }
} catch let error as ParsedArguments.UsageError {
    finish(.usage, "\(command): \(error.message); run 'vaultctl help'")
} catch let error as VaultClientError {
    finish(ExitCode(error.code), error.message)
} catch let error as VaultError {
    finish(ExitCode(error.code), error.description)
} catch {
    finish(.failure, "\(error)")
}
