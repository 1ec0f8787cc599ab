#include "CGDBusShims.h"

#include <gio/gunixfdlist.h>
#include <string.h>
#include <unistd.h>

struct vault_dbus_server {
    GMainContext *context;
    GMainLoop *loop;
    GDBusConnection *connection;
    GDBusNodeInfo *nodes;
    vault_dbus_method_handler handler;
    vault_dbus_vanished_handler vanished;
    vault_dbus_vanished_handler appeared;
    void *user;
};

#define SECRETS "/org/freedesktop/secrets"

static void method_call(GDBusConnection *connection, const gchar *sender, const gchar *path,
                        const gchar *interface, const gchar *method, GVariant *parameters,
                        GDBusMethodInvocation *invocation, gpointer user_data) {
    (void)connection; (void)sender; (void)path; (void)interface; (void)method; (void)parameters;
    vault_dbus_server *server = user_data;
    server->handler(server->user, invocation);
}

// get_property and set_property are NULL: GDBus checks the property exists, is readable or
// writable and has the right type, then hands Get, GetAll and Set to method_call, so that they
// too are answered off the bus thread.
static const GDBusInterfaceVTable vtable = {method_call, NULL, NULL, {0}};

static GDBusInterfaceInfo *interface_named(vault_dbus_server *server, const char *name) {
    return g_dbus_node_info_lookup_interface(server->nodes, name);
}

static gboolean has_prefix(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0 && text[strlen(prefix)] != '\0';
}

// Which interface the object at `path`, node `node` of a subtree, has: the items subtree's root
// is the login collection, its nodes items; the aliases' nodes are collections; sessions and
// prompts theirs. GDBus passes the subtree's path and the node for calls, but the object's own
// path and the node for Properties calls: both forms are accepted.
static const char *interface_for(const char *path, const char *node) {
    char *full = NULL;
    size_t length = strlen(path), node_length = node ? strlen(node) : 0;
    gboolean whole = node == NULL || (length > node_length && path[length - node_length - 1] == '/' &&
                                      strcmp(path + length - node_length, node) == 0);
    const char *object = whole ? path : (full = g_strconcat(path, "/", node, NULL));
    const char *name = NULL;
    if (strcmp(object, SECRETS "/collection/login") == 0) name = "org.freedesktop.Secret.Collection";
    else if (has_prefix(object, SECRETS "/collection/login/")) name = "org.freedesktop.Secret.Item";
    else if (has_prefix(object, SECRETS "/aliases/")) name = "org.freedesktop.Secret.Collection";
    else if (has_prefix(object, SECRETS "/session/")) name = "org.freedesktop.Secret.Session";
    else if (has_prefix(object, SECRETS "/prompt/")) name = "org.freedesktop.Secret.Prompt";
    g_free(full);
    return name;
}

static gchar **subtree_enumerate(GDBusConnection *connection, const gchar *sender, const gchar *path,
                                 gpointer user_data) {
    (void)connection; (void)sender; (void)user_data;
    // Only the aliases are listed; items, sessions and prompts are found through the API.
    if (strcmp(path, SECRETS "/aliases") == 0) {
        gchar **nodes = g_new0(gchar *, 3);
        nodes[0] = g_strdup("default");
        nodes[1] = g_strdup("login");
        return nodes;
    }
    return g_new0(gchar *, 1);
}

static GDBusInterfaceInfo **subtree_introspect(GDBusConnection *connection, const gchar *sender,
                                               const gchar *path, const gchar *node, gpointer user_data) {
    (void)connection; (void)sender;
    const char *name = interface_for(path, node);
    if (name == NULL) return NULL;
    GDBusInterfaceInfo *info = interface_named(user_data, name);
    if (info == NULL) return NULL;
    GDBusInterfaceInfo **result = g_new0(GDBusInterfaceInfo *, 2);
    result[0] = g_dbus_interface_info_ref(info);
    return result;
}

static const GDBusInterfaceVTable *subtree_dispatch(GDBusConnection *connection, const gchar *sender,
                                                    const gchar *path, const gchar *interface,
                                                    const gchar *node, gpointer *out_user_data,
                                                    gpointer user_data) {
    (void)connection; (void)sender;
    const char *name = interface_for(path, node);
    if (name == NULL || strcmp(name, interface) != 0) return NULL;
    *out_user_data = user_data;
    return &vtable;
}

static const GDBusSubtreeVTable subtree_vtable = {subtree_enumerate, subtree_introspect, subtree_dispatch, {0}};

static void name_owner_changed(GDBusConnection *connection, const gchar *sender, const gchar *path,
                               const gchar *interface, const gchar *signal, GVariant *parameters,
                               gpointer user_data) {
    (void)connection; (void)sender; (void)path; (void)interface; (void)signal;
    vault_dbus_server *server = user_data;
    if (!g_variant_is_of_type(parameters, G_VARIANT_TYPE("(sss)"))) return;
    const gchar *name = NULL, *old_owner = NULL, *new_owner = NULL;
    g_variant_get(parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
    if (name[0] != ':') return;
    if (new_owner[0] == '\0') server->vanished(server->user, name);
    else if (old_owner[0] == '\0') server->appeared(server->user, name);
}

vault_dbus_server *vault_dbus_server_new(const char *address, const char *introspection_xml,
                                         vault_dbus_method_handler handler,
                                         vault_dbus_vanished_handler vanished, vault_dbus_vanished_handler appeared,
                                         void *context, GError **error) {
    vault_dbus_server *server = g_new0(vault_dbus_server, 1);
    server->handler = handler;
    server->vanished = vanished;
    server->appeared = appeared;
    server->user = context;
    server->context = g_main_context_new();
    server->loop = g_main_loop_new(server->context, FALSE);
    // Registrations and subscriptions dispatch in the thread-default context at their time.
    g_main_context_push_thread_default(server->context);
    server->nodes = g_dbus_node_info_new_for_xml(introspection_xml, error);
    if (server->nodes == NULL) goto fail;
    server->connection = g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, NULL, error);
    if (server->connection == NULL) goto fail;
    g_dbus_connection_set_exit_on_close(server->connection, FALSE);
    if (g_dbus_connection_register_object(server->connection, SECRETS,
                                          interface_named(server, "org.freedesktop.Secret.Service"),
                                          &vtable, server, NULL, error) == 0)
        goto fail;
    // vault.Provider (VaultFile): tells another vaultd which vault file this one serves.
    if (g_dbus_connection_register_object(server->connection, SECRETS, interface_named(server, "vault.Provider"),
                                          &vtable, server, NULL, error) == 0)
        goto fail;
    const char *subtrees[] = {SECRETS "/collection/login", SECRETS "/aliases", SECRETS "/session", SECRETS "/prompt"};
    for (size_t i = 0; i < sizeof subtrees / sizeof subtrees[0]; i++) {
        if (g_dbus_connection_register_subtree(server->connection, subtrees[i], &subtree_vtable,
                                               G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES,
                                               server, NULL, error) == 0)
            goto fail;
    }
    g_dbus_connection_signal_subscribe(server->connection, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                       "NameOwnerChanged", "/org/freedesktop/DBus", NULL,
                                       G_DBUS_SIGNAL_FLAGS_NONE, name_owner_changed, server, NULL);
    g_main_context_pop_thread_default(server->context);
    return server;
fail:
    if (server->connection) {
        g_dbus_connection_close_sync(server->connection, NULL, NULL);
        g_object_unref(server->connection);
    }
    if (server->nodes) g_dbus_node_info_unref(server->nodes);
    g_main_context_pop_thread_default(server->context);
    g_main_loop_unref(server->loop);
    g_main_context_unref(server->context);
    g_free(server);
    return NULL;
}

guint32 vault_dbus_server_request_name(vault_dbus_server *server, const char *name, GError **error) {
    GVariant *reply = g_dbus_connection_call_sync(
        server->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        "RequestName", g_variant_new("(su)", name, (guint32)G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE),
        G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL, error);
    if (reply == NULL) return 0;
    guint32 code = 0;
    g_variant_get(reply, "(u)", &code);
    g_variant_unref(reply);
    return code;
}

void vault_dbus_server_free(vault_dbus_server *server) {
    g_dbus_connection_close_sync(server->connection, NULL, NULL);
    g_object_unref(server->connection);
    g_dbus_node_info_unref(server->nodes);
    g_main_loop_unref(server->loop);
    g_main_context_unref(server->context);
    g_free(server);
}

void vault_dbus_server_run(vault_dbus_server *server) {
    g_main_context_push_thread_default(server->context);
    g_main_loop_run(server->loop);
    g_main_context_pop_thread_default(server->context);
}

void vault_dbus_server_quit(vault_dbus_server *server) { g_main_loop_quit(server->loop); }

GDBusConnection *vault_dbus_server_connection(vault_dbus_server *server) { return server->connection; }

gboolean vault_dbus_emit(vault_dbus_server *server, const char *destination, const char *path,
                         const char *interface, const char *member, GVariant *parameters) {
    return g_dbus_connection_emit_signal(server->connection, destination, path, interface, member, parameters, NULL);
}

gboolean vault_variant_is(GVariant *value, const char *type) {
    return g_variant_type_string_is_valid(type) && g_variant_is_of_type(value, G_VARIANT_TYPE(type));
}

GVariant *vault_variant_new_array(const char *child_type, GVariant *const *children, gsize n) {
    return g_variant_new_array(G_VARIANT_TYPE(child_type), children, n);
}

GVariant *vault_variant_new_bytes(const void *bytes, gsize length) {
    return g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, length ? bytes : "", length, 1);
}

// Reads GetConnectionCredentials' reply (and its fd list) into the out-parameters; FALSE with
// `error` set when it names no uid.
static gboolean read_credentials(GVariant *reply, GUnixFDList *fds, guint32 *uid, guint32 *pid, gboolean *has_pid,
                                 int *process_fd, GError **error) {
    *process_fd = -1;
    GVariant *dict = g_variant_get_child_value(reply, 0);
    gboolean has_uid = g_variant_lookup(dict, "UnixUserID", "u", uid);
    *has_pid = g_variant_lookup(dict, "ProcessID", "u", pid);
    gint32 index = -1;
    // ProcessFD (dbus-daemon 1.15.7+, dbus-broker): a pidfd the bus took when the caller connected.
    if (fds != NULL && g_variant_lookup(dict, "ProcessFD", "h", &index) && index >= 0 &&
        index < g_unix_fd_list_get_length(fds))
        *process_fd = g_unix_fd_list_get(fds, index, NULL);
    g_variant_unref(dict);
    if (!has_uid) {
        if (*process_fd >= 0) close(*process_fd);
        *process_fd = -1;
        g_set_error_literal(error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED, "the bus did not report the caller's uid");
        return FALSE;
    }
    return TRUE;
}

gboolean vault_dbus_sender_credentials(vault_dbus_server *server, const char *sender, gint timeout_ms,
                                       guint32 *uid, guint32 *pid, gboolean *has_pid, int *process_fd,
                                       GError **error) {
    *process_fd = -1;
    GUnixFDList *fds = NULL;
    GVariant *reply = g_dbus_connection_call_with_unix_fd_list_sync(
        server->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        "GetConnectionCredentials", g_variant_new("(s)", sender), G_VARIANT_TYPE("(a{sv})"),
        G_DBUS_CALL_FLAGS_NONE, timeout_ms, NULL, &fds, NULL, error);
    if (reply == NULL) return FALSE;
    gboolean ok = read_credentials(reply, fds, uid, pid, has_pid, process_fd, error);
    g_variant_unref(reply);
    if (fds != NULL) g_object_unref(fds);
    return ok;
}

typedef struct {
    vault_dbus_server *server;
    gchar *sender;
    vault_dbus_credentials_handler handler;
} credentials_call;

static void credentials_answered(GObject *source, GAsyncResult *result, gpointer user_data) {
    credentials_call *call = user_data;
    GUnixFDList *fds = NULL;
    GError *error = NULL;
    guint32 uid = 0, pid = 0;
    gboolean has_pid = FALSE;
    int process_fd = -1;
    GVariant *reply = g_dbus_connection_call_with_unix_fd_list_finish(G_DBUS_CONNECTION(source), &fds, result, &error);
    gboolean ok = reply != NULL && read_credentials(reply, fds, &uid, &pid, &has_pid, &process_fd, &error);
    if (reply != NULL) g_variant_unref(reply);
    if (fds != NULL) g_object_unref(fds);
    if (error != NULL) g_error_free(error);
    call->handler(call->server->user, call->sender, ok, uid, pid, has_pid, process_fd);
    g_free(call->sender);
    g_free(call);
}

void vault_dbus_sender_credentials_async(vault_dbus_server *server, const char *sender, gint timeout_ms,
                                         vault_dbus_credentials_handler handler) {
    credentials_call *call = g_new0(credentials_call, 1);
    call->server = server;
    call->sender = g_strdup(sender);
    call->handler = handler;
    g_dbus_connection_call_with_unix_fd_list(
        server->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
        "GetConnectionCredentials", g_variant_new("(s)", sender), G_VARIANT_TYPE("(a{sv})"),
        G_DBUS_CALL_FLAGS_NONE, timeout_ms, NULL, NULL, credentials_answered, call);
}

// The answers of an owner without vault.Provider (GNOME Keyring, KeePassXC), or of the bus when
// nobody owns the name and none can be started. Anything else (no reply, a time-out, a failed
// activation) is no answer.
static gboolean not_a_vaultd(GError *error) {
    if (!g_dbus_error_is_remote_error(error)) return FALSE;
    gchar *name = g_dbus_error_get_remote_error(error);
    static const char *answers[] = {
        "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.UnknownProperty",
        "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownObject",
        "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.NotSupported",
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
    };
    gboolean found = FALSE;
    for (size_t i = 0; name != NULL && i < sizeof answers / sizeof answers[0]; i++)
        if (strcmp(name, answers[i]) == 0) found = TRUE;
    g_free(name);
    return found;
}

gchar *vault_dbus_provider_vault_file(const char *address, gint timeout_ms, guint32 *owner_pid, GError **error) {
    *owner_pid = 0;
    GDBusConnection *connection = g_dbus_connection_new_for_address_sync(
        address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
        NULL, NULL, error);
    if (connection == NULL) return NULL;
    g_dbus_connection_set_exit_on_close(connection, FALSE);
    GError *local = NULL;
    GVariant *reply = g_dbus_connection_call_sync(
        connection, "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.DBus.Properties", "Get",
        g_variant_new("(ss)", "vault.Provider", "VaultFile"), G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE,
        timeout_ms, NULL, &local);
    gchar *path = NULL;
    if (reply != NULL) {
        GVariant *value = NULL;
        g_variant_get(reply, "(v)", &value);
        if (g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) path = g_variant_dup_string(value, NULL);
        g_variant_unref(value);
        g_variant_unref(reply);
    } else if (not_a_vaultd(local)) {
        g_error_free(local);
        // Which process it is (an older vaultd has no vault.Provider either).
        GVariant *owner = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
            g_variant_new("(s)", "org.freedesktop.secrets"), G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, timeout_ms, NULL, NULL);
        if (owner != NULL) {
            g_variant_get(owner, "(u)", owner_pid);
            g_variant_unref(owner);
        }
    } else {
        g_propagate_error(error, local);
    }
    g_dbus_connection_close_sync(connection, NULL, NULL);
    g_object_unref(connection);
    return path;
}
