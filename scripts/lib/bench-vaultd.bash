# Sourced by scripts/bench and scripts/bench-compare: one vaultd to measure.
# start_bench_vaultd DIR BIN CLIENT PIDFILE: BIN's vaultd on a vault of its own under DIR (its
# runtime, data and home directories), its pid in PIDFILE; returns once it answers (the first
# request waits for the start-up unlock), asked with the C client CLIENT. The passphrase comes
# from VAULT_PASSPHRASE_FILE, set by the caller.
start_bench_vaultd() {
  local dir=$1 bin=$2 client=$3 pidfile=$4
  mkdir -p -m 700 "$dir/run" "$dir/home" "$dir/data"
  # Its output away from the script's: a daemon holding the pipe would keep a reader waiting.
  XDG_RUNTIME_DIR=$dir/run XDG_DATA_HOME=$dir/data HOME=$dir/home \
    "$bin/vaultd" --log-file "$dir/vaultd.log" --max-connections-per-process 64 </dev/null >/dev/null 2>>"$dir/vaultd.stderr" &
  echo $! > "$pidfile"
  for _ in $(seq 400); do [ -S "$dir/run/vault/vault.sock" ] && break; sleep 0.05; done
  "$client" --once "$dir/run/vault/vault.sock" '{"op":"status"}' >/dev/null
}
