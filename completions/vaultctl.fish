# fish completion for vaultctl
# Generated from the command table (Sources/VaultCLI/CommandLine/CommandTable.swift) by
# scripts/generate-completions: edit the table, not this file.

# Prints how many positionals of the command typed so far come before the token being
# completed, then that command (aliases resolved; a subcommand after its group and a
# space; empty before one). The global --socket may come anywhere before --.
function __vaultctl_state
    set -l words (commandline -opc)
    set -e words[1]
    set -l command ''
    set -l positionals 0
    set -l ended 0
    while set -q words[1]
        set -l word $words[1]
        set -e words[1]
        if test $ended = 0; and string match -q -- '-?*' $word
            if test $word = --; and test -n "$command"
                set ended 1
            else if contains -- $word --socket (__vaultctl_valued $command)
                set -e words[1]
            end
        else if test -z "$command"
            set command (__vaultctl_canonical $word)
        else if contains -- $word (__vaultctl_subcommands $command)
            set command (__vaultctl_canonical $command $word)
        else
            set positionals (math $positionals + 1)
        end
    end
    echo $positionals
    echo $command
end

# The command the words name, aliases resolved.
function __vaultctl_canonical
    switch "$argv"
        case 'rm'
            echo 'delete'
        case 'ls'
            echo 'list'
        case '--version'
            echo 'version'
        case '--help' '-h'
            echo 'help'
        case '*'
            echo "$argv"
    end
end

# The options of a command that take a value.
function __vaultctl_valued
    switch "$argv"
        case 'set'
            printf '%s\n' --label --comment
        case 'add'
            printf '%s\n' --label --comment
        case 'token'
            printf '%s\n' --min-ttl --format --env-name
        case 'run'
            printf '%s\n' --env-file --on-refresh
        case 'inject'
            printf '%s\n' --in-file --out-file --mode --command
        case 'login'
            printf '%s\n' --token-endpoint --username --client-id --client-secret-file --scope --service --account --url --anon-key --api-key --email --min-password-length --revocation-endpoint --device-endpoint
        case 'signup'
            printf '%s\n' --token-endpoint --username --client-id --client-secret-file --scope --service --account --url --anon-key --api-key --email --min-password-length --revocation-endpoint --device-endpoint
        case 'reset-password'
            printf '%s\n' --url --anon-key --api-key --email
        case 'session import'
            printf '%s\n' --provider --url --anon-key --api-key --token-endpoint --client-id
        case 'kubeconfig'
            printf '%s\n' --name --api-version
        case 'remote add'
            printf '%s\n' --url --auth --mount --prefix --ca-file --max-age --role-id --username --role --jwt-file
        case 'space create'
            printf '%s\n' --remote --path --device
        case 'space join'
            printf '%s\n' --remote --path --device --timeout
        case 'space resolve'
            printf '%s\n' --keep
        case 'allow'
            printf '%s\n' --interpreter
        case 'audit'
            printf '%s\n' --since
        case 'migrate'
            printf '%s\n' --to
    end
end

# A group's subcommands.
function __vaultctl_subcommands
    switch "$argv"
        case 'session'
            printf '%s\n' import
        case 'aws'
            printf '%s\n' set credential-process
        case 'remote'
            printf '%s\n' add list remove login sync
        case 'space'
            printf '%s\n' create join admit add remove status remove-device sync resolve
    end
end

# Whether the command typed so far is one of $argv ('' before one).
function __vaultctl_using
    set -l state (__vaultctl_state)
    contains -- "$state[2]" $argv
end

# Whether the token being completed is positional number $argv[1] (from 0) of one of the
# commands $argv[2..].
function __vaultctl_at
    set -l state (__vaultctl_state)
    test "$state[1]" = "$argv[1]"; and contains -- "$state[2]" $argv[2..-1]
end

# The vault's service names.
function __vaultctl_services
    VAULT_NO_AUTOSTART=1 vaultctl list 2>/dev/null | cut -f1 | sort -u
end

complete -c vaultctl -f
complete -c vaultctl -l socket -r -F -d 'vaultd\'s socket, before or after the command (default: $VAULT_SOCKET, else $XDG_RUNTIME_DIR/vault/vault.sock or ~/.local/state/vault/vault.sock)'
complete -c vaultctl -l help -s h -d 'show help'
complete -c vaultctl -n "__vaultctl_using ''" -l version -d 'print vaultctl\'s version'
complete -c vaultctl -n "__vaultctl_using ''" -a get -d 'print the secret (--json: with its metadata)'
complete -c vaultctl -n "__vaultctl_using ''" -a set -d 'store a secret read from stdin or a prompt'
complete -c vaultctl -n "__vaultctl_using ''" -a add -d 'like set, but fail when the item exists'
complete -c vaultctl -n "__vaultctl_using ''" -a delete -d 'remove an item (or soft-delete a remote secret)'
complete -c vaultctl -n "__vaultctl_using ''" -a rm -d 'remove an item (or soft-delete a remote secret)'
complete -c vaultctl -n "__vaultctl_using ''" -a list -d 'names and metadata, never secrets'
complete -c vaultctl -n "__vaultctl_using ''" -a ls -d 'names and metadata, never secrets'
complete -c vaultctl -n "__vaultctl_using ''" -a status -d 'daemon, store and lock state'
complete -c vaultctl -n "__vaultctl_using ''" -a lock -d 'drop keys from vaultd\'s memory'
complete -c vaultctl -n "__vaultctl_using ''" -a unlock -d 'unlock (prompt, or passphrase on stdin)'
complete -c vaultctl -n "__vaultctl_using ''" -a passwd -d 'change the passphrase (prompts, or two lines on stdin)'
complete -c vaultctl -n "__vaultctl_using ''" -a token -d 'print a valid access token, refreshed when needed'
complete -c vaultctl -n "__vaultctl_using ''" -a read -d 'print what a vault:// reference names'
complete -c vaultctl -n "__vaultctl_using ''" -a run -d 'run COMMAND with vault:// references in its environment resolved'
complete -c vaultctl -n "__vaultctl_using ''" -a inject -d 'fill {{ vault://... }} placeholders of a template'
complete -c vaultctl -n "__vaultctl_using ''" -a login -d 'sign in and keep the session (password: prompt or stdin)'
complete -c vaultctl -n "__vaultctl_using ''" -a signup -d 'sign up and keep the session; the password is asked twice'
complete -c vaultctl -n "__vaultctl_using ''" -a reset-password -d 'ask the provider to email a password reset link'
complete -c vaultctl -n "__vaultctl_using ''" -a logout -d 'sign out on the server, then remove the session'
complete -c vaultctl -n "__vaultctl_using ''" -a session -d 'sessions obtained elsewhere (session import)'
complete -c vaultctl -n "__vaultctl_using ''" -a aws -d 'AWS credentials for credential_process (aws set, aws credential-process)'
complete -c vaultctl -n "__vaultctl_using ''" -a kubeconfig -d 'print a kubeconfig user that gets its token from vaultctl'
complete -c vaultctl -n "__vaultctl_using ''" -a remote -d 'remote engines: a team\'s OpenBao or HashiCorp Vault (remote add, list, sync, ...)'
complete -c vaultctl -n "__vaultctl_using ''" -a write -d 'set one field of a remote secret (value on stdin)'
complete -c vaultctl -n "__vaultctl_using ''" -a history -d 'a remote secret\'s versions'
complete -c vaultctl -n "__vaultctl_using ''" -a space -d 'spaces: items shared by your devices through a remote, end to end encrypted'
complete -c vaultctl -n "__vaultctl_using ''" -a allow -d 'let a program read an item (pins its path and content hash now)'
complete -c vaultctl -n "__vaultctl_using ''" -a disallow -d 'remove a program\'s rule from an item'
complete -c vaultctl -n "__vaultctl_using ''" -a rules -d 'the programs allowed to read an item'
complete -c vaultctl -n "__vaultctl_using ''" -a approve -d 'answer requests for items that need confirmation (in a terminal)'
complete -c vaultctl -n "__vaultctl_using ''" -a audit -d 'the audit log: who read or changed which item, and when'
complete -c vaultctl -n "__vaultctl_using ''" -a doctor -d 'check each store; exit 0 only when the one in use works'
complete -c vaultctl -n "__vaultctl_using ''" -a migrate -d 'move every item to the other store, verified'
complete -c vaultctl -n "__vaultctl_using ''" -a version -d 'print vaultctl\'s version'
complete -c vaultctl -n "__vaultctl_using ''" -a help -d 'this text, or one command\'s usage and options'
complete -c vaultctl -n "__vaultctl_using 'session'" -a import -d 'adopt a session (JSON on stdin; options fill in what it lacks)'
complete -c vaultctl -n "__vaultctl_using 'aws'" -a set -d 'store a profile\'s credentials (credential_process JSON on stdin)'
complete -c vaultctl -n "__vaultctl_using 'aws'" -a credential-process -d 'print a profile\'s credentials as credential_process JSON'
complete -c vaultctl -n "__vaultctl_using 'remote'" -a add -d 'add an engine and log in (the secret on stdin or a prompt)'
complete -c vaultctl -n "__vaultctl_using 'remote'" -a list -d 'the remotes: address, auth, token, cache'
complete -c vaultctl -n "__vaultctl_using 'remote'" -a remove -d 'forget a remote and its cached secrets'
complete -c vaultctl -n "__vaultctl_using 'remote'" -a login -d 'log in again (a new secret on stdin or at a prompt)'
complete -c vaultctl -n "__vaultctl_using 'remote'" -a sync -d 'fetch every secret under a folder into the cache now'
complete -c vaultctl -n "__vaultctl_using 'space'" -a create -d 'make a space in a remote, this device its first member'
complete -c vaultctl -n "__vaultctl_using 'space'" -a join -d 'ask to join a space; prints this device\'s fingerprint and waits'
complete -c vaultctl -n "__vaultctl_using 'space'" -a admit -d 'admit the waiting device whose fingerprint is these words'
complete -c vaultctl -n "__vaultctl_using 'space'" -a add -d 'share an item in the space'
complete -c vaultctl -n "__vaultctl_using 'space'" -a remove -d 'take an item out of the space (it goes from the other devices)'
complete -c vaultctl -n "__vaultctl_using 'space'" -a status -d 'devices, pending pushes, last pull, conflicts'
complete -c vaultctl -n "__vaultctl_using 'space'" -a remove-device -d 'remove a device; the space key is rotated'
complete -c vaultctl -n "__vaultctl_using 'space'" -a sync -d 'run a sync round now'
complete -c vaultctl -n "__vaultctl_using 'space'" -a resolve -d 'settle a conflict: keep the item, or take the conflict copy'
complete -c vaultctl -n "__vaultctl_using 'get'" -l json -d 'print the item with its metadata as JSON (secret, or secret_b64 for bytes that are not UTF-8)'
complete -c vaultctl -n "__vaultctl_at 0 'get' 'set' 'add' 'delete' 'session import' 'allow' 'disallow' 'rules'" -x -a '(__vaultctl_services)' -d 'the item\'s service'
complete -c vaultctl -n "__vaultctl_using 'set' 'add'" -l label -x -d 'a label for listings'
complete -c vaultctl -n "__vaultctl_using 'set' 'add'" -l comment -x -d 'a comment kept with the item'
complete -c vaultctl -n "__vaultctl_using 'set' 'add'" -l raw -d 'keep stdin byte for byte (by default one trailing newline is removed)'
complete -c vaultctl -n "__vaultctl_using 'set' 'add'" -l allow-empty -d 'store an empty secret when stdin is empty (refused otherwise)'
complete -c vaultctl -n "__vaultctl_using 'set' 'add'" -l confirm -d 'from now on, each read needs an answer from \'vaultctl approve\' (unless an allowed program asks)'
complete -c vaultctl -n "__vaultctl_using 'list'" -l json -d 'print the items as JSON'
complete -c vaultctl -n "__vaultctl_at 0 'list'" -x -a '(__vaultctl_services)' -d 'only this service\'s items, or kv://REMOTE/FOLDER/ for a remote\'s names'
complete -c vaultctl -n "__vaultctl_using 'status' 'space status'" -l json -d 'print the status as JSON'
complete -c vaultctl -n "__vaultctl_using 'passwd'" -l rewrap-only -d 'keep the data key and only re-wrap it (fast; not for a passphrase that leaked)'
complete -c vaultctl -n "__vaultctl_using 'token'" -l min-ttl -x -d 'refresh first when the token expires within this: 60, 90s, 5m (default 60s)'
complete -c vaultctl -n "__vaultctl_using 'token'" -l format -x -a 'raw json env header exec-credential' -d 'raw (the default), json, env (export NAME=...), header (Authorization: ...) or exec-credential (kubectl)'
complete -c vaultctl -n "__vaultctl_using 'token'" -l env-name -x -d 'the variable --format env sets (default ACCESS_TOKEN)'
complete -c vaultctl -n "__vaultctl_at 0 'token' 'logout' 'kubeconfig'" -x -a '(__vaultctl_services)' -d 'the session\'s service'
complete -c vaultctl -n "__vaultctl_using 'run'" -l env-file -r -F -d 'dotenv lines (KEY=VALUE, export, quotes, # comments) to add; references allowed'
complete -c vaultctl -n "__vaultctl_using 'run'" -l no-masking -d 'pass COMMAND\'s output through untouched, secrets included'
complete -c vaultctl -n "__vaultctl_using 'run'" -l on-refresh -x -d 'restart, or a signal (HUP, USR1, ...) sent after the VAR_FILE files are rewritten'
complete -c vaultctl -n "__vaultctl_at 0 'run'" -r -F -d 'the program to run (looked up in PATH); after it, every word is its own'
complete -c vaultctl -n "__vaultctl_using 'inject'" -l in-file -r -F -d 'the template (also -i)'
complete -c vaultctl -n "__vaultctl_using 'inject'" -l out-file -r -F -d 'where to write the result (also -o; default: stdout)'
complete -c vaultctl -n "__vaultctl_using 'inject'" -l mode -x -d 'OUT\'s permissions in octal (default 0600)'
complete -c vaultctl -n "__vaultctl_using 'inject'" -l watch -d 'write OUT again whenever a referenced token is refreshed (needs --out-file)'
complete -c vaultctl -n "__vaultctl_using 'inject'" -l command -x -d 'with --watch: a shell command to run after each rewrite'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup' 'session import'" -l token-endpoint -x -d 'OAuth 2.0: the token endpoint'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l username -x -d 'OAuth 2.0 password grant: the user'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup' 'session import'" -l client-id -x -d 'OAuth 2.0: the client\'s id'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l client-secret-file -r -F -d 'OAuth 2.0: a file holding the client secret (never the command line)'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l scope -x -d 'OAuth 2.0: the scope to ask for'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l service -x -d 'the service to keep the session under (Supabase\'s default: the project\'s host)'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l account -x -d 'the session\'s account (default: the email, the user, or \'default\' with --device)'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup' 'reset-password' 'session import'" -l url -x -d 'Supabase: the project\'s URL; Firebase: an emulator\'s URL'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup' 'reset-password' 'session import'" -l anon-key -x -d 'Supabase: the project\'s anon key'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup' 'reset-password' 'session import'" -l api-key -x -d 'Firebase: the Web API key'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup' 'reset-password'" -l email -x -d 'Supabase, Firebase: the account\'s email'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l min-password-length -x -d 'refuse a shorter password before sending anything (default 6)'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l revocation-endpoint -x -d 'OAuth 2.0: where logout revokes the session (RFC 7009)'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l device-endpoint -x -d 'OAuth 2.0 with --device: the device authorization endpoint'
complete -c vaultctl -n "__vaultctl_using 'login' 'signup'" -l device -d 'OAuth 2.0: sign in with a code approved on another device (RFC 8628)'
complete -c vaultctl -n "__vaultctl_at 0 'login'" -x -a 'oauth2 supabase firebase' -d 'who signs you in'
complete -c vaultctl -n "__vaultctl_at 0 'signup'" -x -a 'supabase firebase' -d 'who signs you up'
complete -c vaultctl -n "__vaultctl_at 0 'reset-password'" -x -a 'supabase firebase' -d 'who keeps the account'
complete -c vaultctl -n "__vaultctl_using 'logout'" -l local -d 'forget the session here only, without asking the server to end it'
complete -c vaultctl -n "__vaultctl_using 'session import'" -l provider -x -a 'oauth2 supabase firebase' -d 'the provider, when the JSON does not say'
complete -c vaultctl -n "__vaultctl_using 'kubeconfig'" -l name -x -d 'the user\'s name in the kubeconfig (default: vault-SERVICE)'
complete -c vaultctl -n "__vaultctl_using 'kubeconfig'" -l api-version -x -a 'v1 v1beta1' -d 'the exec plugin\'s apiVersion: v1 (the default) or v1beta1 (kubectl before 1.22)'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l url -x -d 'the engine\'s address: https://HOST:PORT (http:// only on loopback)'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l auth -x -a 'token approle userpass jwt' -d 'how vaultd logs in: token, approle, userpass or jwt'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l mount -x -d 'the KV version 2 mount (default: secret)'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l prefix -x -d 'a folder in the mount that kv://REMOTE/PATH is under'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l ca-file -r -F -d 'PEM certificate authorities to trust instead of the system\'s'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l max-age -x -d 'serve cached copies this old while the engine cannot be reached (default: 1d)'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l role-id -x -d 'the AppRole role id (--auth approle)'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l username -x -d 'the userpass user (--auth userpass)'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l role -x -d 'the JWT role (--auth jwt)'
complete -c vaultctl -n "__vaultctl_using 'remote add'" -l jwt-file -r -F -d 'the file holding the JWT, such as a CI job\'s token (--auth jwt)'
complete -c vaultctl -n "__vaultctl_using 'remote list'" -l json -d 'print the remotes as JSON'
complete -c vaultctl -n "__vaultctl_using 'remote login'" -l new -d 'ask for a new token, secret id or password at the prompt'
complete -c vaultctl -n "__vaultctl_using 'write'" -l force -d 'write over whatever version the engine has'
complete -c vaultctl -n "__vaultctl_using 'write'" -l raw -d 'keep a trailing newline from stdin'
complete -c vaultctl -n "__vaultctl_using 'history'" -l json -d 'print the versions as JSON'
complete -c vaultctl -n "__vaultctl_using 'space create' 'space join'" -l remote -x -d 'the remote engine that keeps the space'
complete -c vaultctl -n "__vaultctl_using 'space create' 'space join'" -l path -x -d 'the space\'s folder in the remote (default: vault-spaces/NAME)'
complete -c vaultctl -n "__vaultctl_using 'space create' 'space join'" -l device -x -d 'this device\'s name as the others see it (default: the host name)'
complete -c vaultctl -n "__vaultctl_using 'space join'" -l timeout -x -d 'how long to wait to be admitted (default: 10m)'
complete -c vaultctl -n "__vaultctl_using 'space resolve'" -l keep -x -a 'item copy' -d 'item: the current value stays; copy: the conflict copy\'s value becomes the item\'s'
complete -c vaultctl -n "__vaultctl_using 'allow'" -l interpreter -r -F -d 'for a script without a #! line (run as python3 tool.py): the program that runs it'
complete -c vaultctl -n "__vaultctl_using 'allow'" -l any-caller -d 'allow a program that serves whoever runs it (vaultctl, a credential helper, a bare interpreter): every program that can run it may read the item'
complete -c vaultctl -n "__vaultctl_at 2 'allow' 'disallow'" -r -F -d 'the program, or the script an interpreter runs'
complete -c vaultctl -n "__vaultctl_using 'rules'" -l json -d 'print the rules as JSON'
complete -c vaultctl -n "__vaultctl_using 'approve'" -l new-secret -d 'change the approval secret (asks for the current one or the vault\'s passphrase)'
complete -c vaultctl -n "__vaultctl_using 'audit'" -l since -x -d 'only records of this last while: 30m, 2h, 7d'
complete -c vaultctl -n "__vaultctl_using 'audit'" -l follow -d 'keep printing records as they are written'
complete -c vaultctl -n "__vaultctl_using 'audit'" -l json -d 'one JSON object per line'
complete -c vaultctl -n "__vaultctl_using 'doctor' 'migrate'" -l json -d 'print the report as JSON'
complete -c vaultctl -n "__vaultctl_using 'migrate'" -l to -x -a 'file secret-service' -d 'the store to move to'
complete -c vaultctl -n "__vaultctl_at 0 'help'" -x -a 'get set add delete list status lock unlock passwd token read run inject login signup reset-password logout session aws kubeconfig remote write history space allow disallow rules approve audit doctor migrate version help' -d 'the command to explain'
