"""A keyring backend that keeps passwords in vault.

Found through the ``keyring.backends`` entry point. Usable (its ``priority`` does not raise) when a
vaultd of this user answers on the socket; then it has priority 4: below the desktop keychains
(Secret Service and macOS at 5, so they stay the default where they exist, and keyring chains
both), above keyrings.alt's file backends and the fail backend. Force it with
``PYTHON_KEYRING_BACKEND=vault_keyring.VaultKeyring``: then a read while vaultd is not running or
the vault is locked finds no password and says why in one line on stderr.

Items are vault items with service = keyring's service and account = keyring's username. A
sign-in session (``vaultctl login``) answers with a fresh access token. It never prompts, never
starts vaultd (a library should not spawn daemons: start it with ``vaultctl status`` or systemd),
and waits a bounded time for every answer.

With ``VAULT_KEYRING_REMOTE=REMOTE/FOLDER`` (a remote of ``vaultctl remote add``), passwords live
in the team's engine instead: field ``password`` of ``kv://REMOTE/FOLDER/SERVICE/USERNAME``, the
service and username each one percent-encoded path segment, read through vaultd's cache.
"""

import logging
import os
import urllib.parse

from keyring.backend import KeyringBackend
from keyring.credentials import SimpleCredential
from keyring.errors import PasswordDeleteError, PasswordSetError

try:
    from keyring.compat import properties
except ImportError:  # keyring before 23.1
    from jaraco.classes import properties

from ._client import TOKEN_TIMEOUT, Connection, VaultError, VaultLocked, VaultUnavailable

__all__ = ["VaultKeyring", "VaultError", "VaultLocked", "VaultUnavailable"]

log = logging.getLogger(__name__)

# Kinds keyring may read as passwords: plain secrets, and sign-in sessions, which answer with a
# fresh access token. AWS credentials (kind `aws`) are vaultctl's, never keyring's.
READABLE_KINDS = ("secret", "session")


FORCED_NAME = "vault_keyring.VaultKeyring"


def _remote():
    """(remote, folder) from VAULT_KEYRING_REMOTE, or None when passwords are local items."""
    value = os.environ.get("VAULT_KEYRING_REMOTE", "").strip("/")
    if not value:
        return None
    remote, _, folder = value.partition("/")
    return remote, folder


def _remote_path(folder, service, username):
    """The secret's path: the service and the username each one segment, '/' and '%' encoded."""
    segments = [urllib.parse.quote(part, safe="") for part in (service, username or "")]
    if any(segment in ("", ".", "..") for segment in segments):
        raise VaultError("bad_request", "keyring's service and username must be names, not '%s' and '%s'" % (service, username))
    return "/".join(([folder] if folder else []) + segments)


def _not_now(error):
    """A read when vaultd is not running or the vault is locked: no password, and one line on
    stderr (logging's last-resort handler, unless the program configured logging) saying what to
    do, instead of a traceback whose last line says it. pip and twine then ask or fail as with
    any missing password."""
    log.warning("vault: %s", error.message)
    return None


class VaultKeyring(KeyringBackend):
    """vault (vaultd), over its Unix socket."""

    @properties.classproperty
    def priority(cls):
        # Chosen by name (PYTHON_KEYRING_BACKEND): usable whatever vaultd's state, so that reads
        # report it in one line (below) instead of keyring's traceback of the priority check.
        if os.environ.get("PYTHON_KEYRING_BACKEND") == FORCED_NAME:
            return 4
        # Otherwise usable only when this user's vaultd answers: the directory and peer checks
        # pass. Nothing is sent. Raises VaultUnavailable, a RuntimeError, otherwise.
        Connection().close()
        return 4

    def get_password(self, service, username):
        try:
            with Connection() as vault:
                return self._password(vault, service, username)
        except (VaultUnavailable, VaultLocked) as error:
            return _not_now(error)

    def _password(self, vault, service, username):
        remote = _remote()
        if remote:
            try:
                return vault.request("kv_get", remote=remote[0], path=_remote_path(remote[1], service, username), field="password")["item"]["secret"]
            except VaultError as error:
                if error.code == "not_found":
                    return None
                raise
        try:
            item = vault.request("get", service=service, account=username)["item"]
        except VaultError as error:
            if error.code == "not_found":
                return None
            raise
        kind = item.get("kind")
        if kind == "session":
            token = vault.request("token", timeout=TOKEN_TIMEOUT, service=service, account=username)["token"]
            return token["access_token"]
        if kind not in READABLE_KINDS:
            raise VaultError("bad_request", "%s (%s) in vault holds %s credentials, not a password: use 'vaultctl %s'" % (
                service, username, kind, "aws credential-process" if kind == "aws" else "get"))
        if "secret" not in item:
            raise VaultError("bad_request", "the secret of %s (%s) is not UTF-8 text, so keyring cannot return it: read it with 'vaultctl get'" % (service, username))
        return item["secret"]

    def set_password(self, service, username, password):
        try:
            with Connection() as vault:
                remote = _remote()
                if remote:
                    vault.request("kv_put", remote=remote[0], path=_remote_path(remote[1], service, username), field="password", secret=password)
                    return
                self._refuse_other_kinds(vault, service, username, "replace")
                vault.request("set", service=service, account=username, secret=password, kind="secret")
        except VaultLocked:
            raise
        except VaultError as error:
            raise PasswordSetError(error.message) from None

    def delete_password(self, service, username):
        try:
            with Connection() as vault:
                remote = _remote()
                if remote:
                    vault.request("kv_delete", remote=remote[0], path=_remote_path(remote[1], service, username))
                    return
                self._refuse_other_kinds(vault, service, username, "delete")
                vault.request("delete", service=service, account=username)
        except VaultLocked:
            raise
        except VaultError as error:
            if error.code == "not_found":
                raise PasswordDeleteError("no password for %s (%s) in vault" % (service, username)) from None
            raise PasswordDeleteError(error.message) from None

    def get_credential(self, service, username):
        try:
            return self._credential(service, username)
        except (VaultUnavailable, VaultLocked) as error:
            return _not_now(error)

    def _credential(self, service, username):
        with Connection() as vault:
            if username is None and _remote():
                remote, folder = _remote()
                path = _remote_path(folder, service, "x").rsplit("/", 1)[0] + "/"
                names = [name for name in vault.request("kv_list", remote=remote, path=path)["keys"] if not name.endswith("/")]
                if len(names) != 1:
                    if names:
                        log.warning("vault has %d accounts for %s: give the username", len(names), service)
                    return None
                username = urllib.parse.unquote(names[0])
            if username is None:
                items = [item for item in vault.request("list", service=service)["items"]
                         if item.get("service") == service and item.get("kind") in READABLE_KINDS]
                if len(items) != 1:
                    if items:
                        log.warning("vault has %d accounts for %s: give the username", len(items), service)
                    return None
                username = items[0]["account"]
            password = self._password(vault, service, username)
            return None if password is None else SimpleCredential(username, password)

    @staticmethod
    def _refuse_other_kinds(vault, service, username, verb):
        """keyring changes only plain secrets: sessions and AWS credentials are vaultctl's."""
        for item in vault.request("list", service=service)["items"]:
            if item.get("account") == username and item.get("kind") not in (None, "secret"):
                raise VaultError("bad_request", "%s (%s) in vault is a %s, which keyring does not %s: use vaultctl" % (
                    service, username, item.get("kind"), verb))
