#if canImport(Glibc)
import Glibc
#endif
import VaultClient
import VaultCore
import VaultSystem

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
                warnIfTheStoreDiffers(for: command, commands)
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
        case .awsSet: try commands.awsSet(arguments)
        case .awsCredentialProcess: try commands.awsCredentialProcess(arguments)
        case .kubeconfig: try commands.kubeconfig(arguments)
        case .read: try commands.read(arguments)
        case .remoteAdd: try commands.remoteAdd(arguments)
        case .remoteList: try commands.remoteList(arguments)
        case .remoteRemove: try commands.remoteRemove(arguments)
        case .remoteLogin: try commands.remoteLogin(arguments)
        case .remoteSync: try commands.remoteSync(arguments)
        case .spaceCreate: try commands.spaceCreate(arguments)
        case .spaceJoin: try commands.spaceJoin(arguments)
        case .spaceAdmit: try commands.spaceAdmit(arguments)
        case .spaceAdd: try commands.spaceAdd(arguments)
        case .spaceRemove: try commands.spaceRemove(arguments)
        case .spaceStatus: try commands.spaceStatus(arguments)
        case .spaceRemoveDevice: try commands.spaceRemoveDevice(arguments)
        case .spaceSync: try commands.spaceSync(arguments)
        case .spaceResolve: try commands.spaceResolve(arguments)
        case .write: try commands.writeRemote(arguments)
        case .history: try commands.history(arguments)
        case .run: exit(try commands.run(arguments))
        case .inject: try commands.inject(arguments)
        case .allow: try commands.allow(arguments)
        case .disallow: try commands.disallow(arguments)
        case .rules: try commands.rules(arguments)
        case .approve: try commands.approve(arguments)
        case .audit: if try !commands.audit(arguments) { exit(ExitCode.failure.rawValue) }
        case .doctor: if try !commands.doctor(arguments) { exit(ExitCode.failure.rawValue) }
        case .migrate: try commands.migrate(arguments)
        case .version: Output.line("vaultctl \(VaultVersion.string)")
        case .help: break  // the parser answers help itself
        }
    }

    /// VAULT_BACKEND is read when vaultd starts, so a running vaultd on another store ignores
    /// it: say so (once, on stderr) rather than answer from a store the user did not ask for.
    static func warnIfTheStoreDiffers(for command: CommandName, _ commands: Commands) {
        guard command != .version && command != .help && command != .migrate,
              let wanted = ProcessEnvironment.current["VAULT_BACKEND"].flatMap(StoreKind.init(rawValue:)),
              StoreKind.persistent.contains(wanted),
              let status = try? commands.vault.status(), status.store != wanted else { return }
        Output.error("warning: VAULT_BACKEND asks for the \(wanted) store, but the vaultd running (pid \(status.pid)) serves the \(status.store) store (\(status.storeReason)). "
                     + "vaultd reads VAULT_BACKEND when it starts: restart it to switch (systemctl --user restart vaultd, or kill \(status.pid)), or 'vaultctl migrate --to \(wanted)' to move the items")
    }

    static func finish(_ code: ExitCode, _ message: String) -> Never {
        Output.error(message)
        exit(code.rawValue)
    }
}
