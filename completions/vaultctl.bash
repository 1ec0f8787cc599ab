# bash completion for vaultctl
_vaultctl() {
    local cur prev words cword
    _init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
    local commands="get set add delete list status lock unlock passwd token login signup reset-password logout session doctor migrate version help"
    case $prev in
        --socket) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --label|--comment) return ;;
        --to) COMPREPLY=($(compgen -W "file secret-service" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "raw json env header exec-credential" -- "$cur")); return ;;
        --client-secret-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    local command="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            --socket) ((i++)) ;;
            -*) ;;
            *) command=${words[i]}; break ;;
        esac
    done
    if [ -z "$command" ]; then
        COMPREPLY=($(compgen -W "$commands --socket --help --version" -- "$cur"))
        return
    fi
    local options=""
    case $command in
        get) options="--json" ;;
        set|add) options="--label --comment --raw" ;;
        list|status|doctor) options="--json" ;;
        migrate) options="--to --json" ;;
        token) options="--min-ttl --format --env-name" ;;
        login|signup|reset-password) options="--url --anon-key --email --token-endpoint --username --client-id --client-secret-file --scope --service --account --revocation-endpoint --min-password-length" ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options --socket" -- "$cur"))
    elif [[ $command == get || $command == set || $command == delete || $command == list ]] && [ "$((cword - i))" -eq 1 ]; then
        # Service names from the vault (names only; never secrets).
        COMPREPLY=($(compgen -W "$(VAULT_NO_AUTOSTART=1 vaultctl list 2>/dev/null | cut -f1 | sort -u)" -- "$cur"))
    fi
}
complete -F _vaultctl vaultctl
