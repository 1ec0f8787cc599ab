# bash completion for vaultctl
# Generated from the command table (Sources/VaultCLI/CommandLine/CommandTable.swift) by
# scripts/generate-completions: edit the table, not this file.

# Completes $cur from the words in $1, or from :files or :services (the vault's service names).
_vaultctl_complete() {
    case $1 in
        :files) local IFS=$'\n'; compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
        :services) local IFS=$'\n'; COMPREPLY=($(compgen -W "$(VAULT_NO_AUTOSTART=1 vaultctl list 2>/dev/null | cut -f1 | sort -u)" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "$1" -- "$cur")) ;;
    esac
}

# Sets command to the command $1 names (aliases resolved), options to its options (those
# that take a value end in '=') and subcommands to a group's subcommands.
_vaultctl_command() {
    command=$1 options="" subcommands=""
    case $1 in
        get|status|"remote list"|history|"space status"|rules|doctor) options="--json" ;;
        set|add) options="--label= --comment= --raw --allow-empty --confirm" ;;
        delete|rm) command=delete ;;
        list|ls) command=list options="--json" ;;
        passwd) options="--rewrap-only" ;;
        token) options="--min-ttl= --format= --env-name=" ;;
        run) options="--env-file= --no-masking --on-refresh=" ;;
        inject) options="--in-file= --out-file= --mode= --watch --command=" ;;
        login|signup) options="--token-endpoint= --username= --client-id= --client-secret-file= --scope= --service= --account= --url= --anon-key= --api-key= --email= --min-password-length= --revocation-endpoint= --device-endpoint= --device" ;;
        reset-password) options="--url= --anon-key= --api-key= --email=" ;;
        logout) options="--local" ;;
        session) subcommands="import" ;;
        "session import") options="--provider= --url= --anon-key= --api-key= --token-endpoint= --client-id=" ;;
        aws) subcommands="set credential-process" ;;
        kubeconfig) options="--name= --api-version=" ;;
        remote) subcommands="add list remove login sync" ;;
        "remote add") options="--url= --auth= --mount= --prefix= --ca-file= --max-age= --role-id= --username= --role= --jwt-file=" ;;
        "remote login") options="--new" ;;
        write) options="--force --raw" ;;
        space) subcommands="create join admit add remove status remove-device sync resolve" ;;
        "space create") options="--remote= --path= --device=" ;;
        "space join") options="--remote= --path= --device= --timeout=" ;;
        "space resolve") options="--keep=" ;;
        allow) options="--interpreter= --any-caller" ;;
        approve) options="--new-secret" ;;
        audit) options="--since= --follow --json" ;;
        migrate) options="--to= --json" ;;
        version|--version) command=version ;;
        help|--help|-h) command=help ;;
    esac
}

_vaultctl() {
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null; then
        _init_completion -s || return
    else
        words=("${COMP_WORDS[@]}") cword=$COMP_CWORD cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    fi
    # The command typed so far, and how many of its positionals come before $cur;
    # the global --socket may come anywhere before --.
    local command="" options="" subcommands="" positionals=0 ended=false i
    for ((i = 1; i < cword; i++)); do
        if ! $ended && [[ ${words[i]} == -?* ]]; then
            if [[ ${words[i]} == -- && -n $command ]]; then
                ended=true
            elif [[ " $options --socket= " == *" ${words[i]}= "* ]]; then
                ((i++))
            fi
        elif [[ -z $command || -n $subcommands ]]; then
            _vaultctl_command "${command:+$command }${words[i]}"
        else
            ((positionals++))
        fi
    done
    if ! $ended && [[ " $options --socket= " == *" $prev= "* ]]; then
        case "$command $prev" in
            *" --socket"|"run --env-file"|"inject --in-file"|"inject --out-file"|"login --client-secret-file"|"signup --client-secret-file"|"remote add --ca-file"|"remote add --jwt-file"|"allow --interpreter") _vaultctl_complete :files ;;
            "token --format") _vaultctl_complete "raw json env header exec-credential" ;;
            "session import --provider") _vaultctl_complete "oauth2 supabase firebase" ;;
            "kubeconfig --api-version") _vaultctl_complete "v1 v1beta1" ;;
            "remote add --auth") _vaultctl_complete "token approle userpass jwt" ;;
            "space resolve --keep") _vaultctl_complete "item copy" ;;
            "migrate --to") _vaultctl_complete "file secret-service" ;;
        esac
    elif [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            _vaultctl_complete "--socket --version --help -h"
        else
            _vaultctl_complete "get set add delete list status lock unlock passwd token read run inject login signup reset-password logout session aws kubeconfig remote write history space allow disallow rules approve audit doctor migrate version help rm ls"
        fi
    elif [[ -n $subcommands ]]; then
        _vaultctl_complete "$subcommands"
    elif ! $ended && [[ $cur == -* ]]; then
        _vaultctl_complete "${options//=/} --socket --help -h"
    else
        case "$command $positionals" in
            "get 0"|"set 0"|"add 0"|"delete 0"|"list 0"|"token 0"|"logout 0"|"session import 0"|"kubeconfig 0"|"allow 0"|"disallow 0"|"rules 0") _vaultctl_complete :services ;;
            "run 0"|"allow 2"|"disallow 2") _vaultctl_complete :files ;;
            "login 0") _vaultctl_complete "oauth2 supabase firebase" ;;
            "signup 0"|"reset-password 0") _vaultctl_complete "supabase firebase" ;;
            "help 0") _vaultctl_complete "get set add delete list status lock unlock passwd token read run inject login signup reset-password logout session aws kubeconfig remote write history space allow disallow rules approve audit doctor migrate version help" ;;
        esac
    fi
}
complete -F _vaultctl vaultctl
