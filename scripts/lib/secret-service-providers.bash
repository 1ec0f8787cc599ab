# Sourced by scripts/install and scripts/quickstart.
# other_secret_service_providers OWN_FILE: prints each D-Bus activation file, other than OWN_FILE,
# that offers org.freedesktop.secrets where a session bus looks for services
# ($XDG_DATA_HOME and $XDG_DATA_DIRS, each with /dbus-1/services, as dbus-daemon's
# <standard_session_servicedirs/> resolves them), and the program it starts:
#   /usr/share/dbus-1/services/org.freedesktop.secrets.service /usr/bin/gnome-keyring-daemon
# GNOME Keyring, KeePassXC (when packaged with activation) and oo7 install such a file.
other_secret_service_providers() {
  local own=$1 dir file exec
  local data_home=${XDG_DATA_HOME:-$HOME/.local/share}
  local IFS=:
  for dir in $data_home ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}; do
    for file in "$dir"/dbus-1/services/*.service; do
      [ -f "$file" ] && [ "$file" != "$own" ] || continue
      grep -qs '^Name=org.freedesktop.secrets$' "$file" || continue
      exec=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$file" | head -n 1)
      # An earlier install of vault's own (another PREFIX) is not another provider.
      case "$exec" in */vaultd) continue ;; esac
      printf '%s %s\n' "$file" "${exec:-?}"
    done
  done
}
