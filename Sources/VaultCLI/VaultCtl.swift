#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore

/// vaultctl: parses the command line with the command table, runs the command's handler on a
/// `VaultConnection`, and turns every failure into its message and exit code.
public enum VaultCtl {
    public static func main(arguments: [String]) -> Never {
        let invocation: Invocation
        do {
            invocation = try CommandParser().parse(arguments)
        } catch {
            finish(.usage, error.description)
        }
        switch invocation.action {
        case .help(let text):
            Output.write(Array(text.utf8))
            exit(ExitCode.success.rawValue)
        case .usage(let text):
            Output.write(Array(text.utf8), to: 2)
            exit(ExitCode.usage.rawValue)
        case .run(let command, let parsed):
            let commands = Commands(vault: VaultConnection(socketPath: invocation.socketPath))
            do {
                try run(command, parsed, with: commands)
                exit(ExitCode.success.rawValue)
            } catch let error as UsageError {
                finish(.usage, error.within(command).description)
            } catch let error as VaultClientError {
                finish(ExitCode(error.code), error.message)
            } catch let error as VaultError {
                finish(ExitCode(error.code), error.description)
            } catch {
                finish(.failure, "\(error)")
            }
        }
    }

    /// The dispatch switch: one case per command, checked by the compiler.
    static func run(_ command: CommandName, _ arguments: ParsedArguments, with commands: Commands) throws {
        switch command {
        case .get: try commands.get(arguments)
        case .set: try commands.write(replacing: true, arguments)
        case .add: try commands.write(replacing: false, arguments)
        case .delete: try commands.delete(arguments)
        case .list: try commands.list(arguments)
        case .status: try commands.status(arguments)
        case .lock: try commands.lock(arguments)
        case .unlock: try commands.unlock(arguments)
        case .passwd: try commands.passwd(arguments)
        case .token: try commands.token(arguments)
        case .login: try commands.signIn(arguments, signingUp: false)
        case .signup: try commands.signIn(arguments, signingUp: true)
        case .resetPassword: try commands.resetPassword(arguments)
        case .logout: try commands.logout(arguments)
        case .sessionImport: try commands.importSession(arguments)
        case .read: try commands.read(arguments)
        case .run: exit(try commands.run(arguments))
        case .inject: try commands.inject(arguments)
        case .doctor: if try !commands.doctor(arguments) { exit(ExitCode.failure.rawValue) }
        case .migrate: try commands.migrate(arguments)
        case .version: Output.line("vaultctl \(VaultVersion.string)")
        case .help: break  // the parser answers help itself
        }
    }

    static func finish(_ code: ExitCode, _ message: String) -> Never {
        Output.error(message)
        exit(code.rawValue)
    }
}
