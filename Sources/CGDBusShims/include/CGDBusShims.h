#ifndef VAULT_CGDBUSSHIMS_H
#define VAULT_CGDBUSSHIMS_H

#include <gio/gio.h>

// vaultd's Secret Service provider on GDBus. One server: its own GMainContext (run by
// vault_dbus_server_run on the thread that created it), one connection to the bus, the objects
// under /org/freedesktop/secrets, every method call (Properties' Get, GetAll and Set included)
// handed to one handler, which owns the invocation and may answer it from any thread.

/// Receives every method call to the provider's objects; must answer `invocation` exactly once
/// (g_dbus_method_invocation_return_*), from any thread.
typedef void (*vault_dbus_method_handler)(void *context, GDBusMethodInvocation *invocation);
/// A unique bus name (":1.42") left the bus, or (the same type) came onto it.
typedef void (*vault_dbus_vanished_handler)(void *context, const char *unique_name);

typedef struct vault_dbus_server vault_dbus_server;

/// Connects to the bus at `address` as a message-bus client, on a new GMainContext made the
/// calling thread's default, and exports the objects described by `introspection_xml` (the
/// interfaces org.freedesktop.Secret.Service, .Collection, .Item, .Session and .Prompt).
/// NULL with `error` set on failure.
vault_dbus_server *vault_dbus_server_new(const char *address, const char *introspection_xml,
                                         vault_dbus_method_handler handler,
                                         vault_dbus_vanished_handler vanished, vault_dbus_vanished_handler appeared,
                                         void *context, GError **error);

/// RequestName with DO_NOT_QUEUE (no replacement either way): 1 when we are now the primary
/// owner, 3 when another connection owns it, 4 when we already did; 0 with `error` set.
guint32 vault_dbus_server_request_name(vault_dbus_server *server, const char *name, GError **error);

/// Closes the connection (releasing any name it owns) and frees a server whose loop is not running.
void vault_dbus_server_free(vault_dbus_server *server);

/// Runs the server's main loop on the calling thread (the one that created it) until quit.
void vault_dbus_server_run(vault_dbus_server *server);
/// Stops the main loop (from any thread).
void vault_dbus_server_quit(vault_dbus_server *server);
GDBusConnection *vault_dbus_server_connection(vault_dbus_server *server);

/// Emits `member` of `interface` from `path` with `parameters` (NULL or a tuple, consumed when
/// floating) to `destination` (a unique name), or to everyone when NULL; from any thread.
gboolean vault_dbus_emit(vault_dbus_server *server, const char *destination, const char *path,
                         const char *interface, const char *member, GVariant *parameters);

// GVariant helpers for what Swift cannot call (G_VARIANT_TYPE is a macro).
gboolean vault_variant_is(GVariant *value, const char *type);
/// An array of `child_type` holding `children` (floating ones are consumed); valid when n is 0.
GVariant *vault_variant_new_array(const char *child_type, GVariant *const *children, gsize n);
/// A copy of `length` bytes as `ay`.
GVariant *vault_variant_new_bytes(const void *bytes, gsize length);
/// The unix uid and pid the bus daemon reports for `sender` (GetConnectionCredentials, bounded
/// by `timeout_ms`), and in `process_fd` the pidfd the bus took for it (ProcessFD, the caller's
/// to close) when the bus gives one, else -1; FALSE with `error` set.
gboolean vault_dbus_sender_credentials(vault_dbus_server *server, const char *sender, gint timeout_ms,
                                       guint32 *uid, guint32 *pid, gboolean *has_pid, int *process_fd,
                                       GError **error);

/// What GetConnectionCredentials said of `sender`, as vault_dbus_sender_credentials gives it
/// (`ok` FALSE: the bus could not say; `process_fd` the receiver's to close, -1 when none).
typedef void (*vault_dbus_credentials_handler)(void *context, const char *sender, gboolean ok, guint32 uid,
                                              guint32 pid, gboolean has_pid, int process_fd);
/// Asks GetConnectionCredentials without waiting; `handler` gets the answer (or the failure)
/// on the server's thread. Call it from the server's thread.
void vault_dbus_sender_credentials_async(vault_dbus_server *server, const char *sender, gint timeout_ms,
                                         vault_dbus_credentials_handler handler);

/// Who serves the Secret Service on the bus at `address`, if it is a vaultd: asks the owner of
/// org.freedesktop.secrets (started by the bus if it is activatable, as libsecret would) for the
/// VaultFile property of vault.Provider on /org/freedesktop/secrets, bounded by `timeout_ms`.
/// The vault file's path (g_free it) when the owner is a vaultd; NULL without `error` set when it
/// answered with a D-Bus error (another provider: it has no such interface; or nobody owns the
/// name and none can be started), with `owner_pid` set to the owner's pid as the bus reports it
/// (GetConnectionUnixProcessID), 0 when there is none or the bus does not say; NULL with `error`
/// set when the bus could not be reached or the owner did not answer.
gchar *vault_dbus_provider_vault_file(const char *address, gint timeout_ms, guint32 *owner_pid, GError **error);

#endif
