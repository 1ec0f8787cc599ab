#ifndef VAULT_CLIBSECRET_SHIM_H
#define VAULT_CLIBSECRET_SHIM_H

#include <libsecret/secret.h>
#include <string.h>

// The schema vault reads and writes with. SECRET_SCHEMA_DONT_MATCH_NAME makes look-ups find items
// whatever their xdg:schema, so items made by secret-tool, Python keyring and go-keyring (which all
// use "service" and "username") are found, and theirs find ours. The vault-* attributes carry
// vault's own metadata without affecting that match.
static inline const SecretSchema *vault_secret_schema(void) {
    static const SecretSchema schema = {
        "org.freedesktop.Secret.Generic",
        SECRET_SCHEMA_DONT_MATCH_NAME,
        {
            {"service", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"username", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"vault-kind", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"vault-comment", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {NULL, 0},
        }
    };
    return &schema;
}

// git-credential-libsecret's schema up to git 2.44 (libsecret's own "compat network" schema),
// which vault writes git items with: every version of that helper finds these items.
static inline const SecretSchema *vault_git_schema(void) {
    return secret_get_schema(SECRET_SCHEMA_TYPE_COMPAT_NETWORK);
}

// docker-credential-secretservice's schema; its look-ups match the schema's name.
static inline const SecretSchema *vault_docker_schema(void) {
    static const SecretSchema schema = {
        "io.docker.Credentials",
        SECRET_SCHEMA_NONE,
        {
            {"label", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"server", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"username", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {"docker_cli", SECRET_SCHEMA_ATTRIBUTE_STRING},
            {NULL, 0},
        }
    };
    return &schema;
}

// A GHashTable of string attributes that owns copies of its keys and values.
static inline GHashTable *vault_attributes_new(void) {
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static inline void vault_attributes_set(GHashTable *table, const char *name, const char *value) {
    g_hash_table_replace(table, g_strdup(name), g_strdup(value));
}

// Frees a GList of SecretItem (or any GObject) references: each element is unreferenced.
static inline void vault_object_list_free(GList *list) {
    g_list_free_full(list, g_object_unref);
}

#endif
