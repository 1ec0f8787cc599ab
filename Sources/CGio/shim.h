#ifndef VAULT_CGIO_SHIM_H
#define VAULT_CGIO_SHIM_H

#include <gio/gio.h>

#endif
