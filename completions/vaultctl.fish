# fish completion for vaultctl
set -l commands get set add delete list status lock unlock passwd doctor migrate version help
complete -c vaultctl -f
complete -c vaultctl -l socket -r -F -d 'socket path'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a get -d 'print a secret'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a set -d 'store a secret from stdin or a prompt'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a add -d 'store a secret, failing if it exists'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a delete -d 'remove an item'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a list -d 'names and metadata, never secrets'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a status -d 'daemon, store and lock state'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a lock -d 'drop keys from memory'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a unlock -d 'unlock the vault'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a passwd -d 'change the passphrase'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a version -d 'print the version'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a help -d 'show usage'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a doctor -d 'check each store'
complete -c vaultctl -n "not __fish_seen_subcommand_from $commands" -a migrate -d 'move every item to the other store'
complete -c vaultctl -n "__fish_seen_subcommand_from migrate" -l to -x -a 'file secret-service' -d 'destination store'
complete -c vaultctl -n "__fish_seen_subcommand_from get list status doctor migrate" -l json -d 'print JSON'
complete -c vaultctl -n "__fish_seen_subcommand_from set add" -l label -r -d 'label'
complete -c vaultctl -n "__fish_seen_subcommand_from set add" -l comment -r -d 'comment'
complete -c vaultctl -n "__fish_seen_subcommand_from set add" -l raw -d 'keep stdin byte for byte'
complete -c vaultctl -n "__fish_seen_subcommand_from get set delete list" -a "(env VAULT_NO_AUTOSTART=1 vaultctl list 2>/dev/null | cut -f1 | sort -u)"
