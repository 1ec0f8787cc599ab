"""vaultd's socket protocol (docs/protocol.md), with the checks every vault client makes before it
sends a byte: the socket's directory and every directory above it (as PrivateDirectory.swift
checks them), then the uid of the process listening (SO_PEERCRED). Failing either, nothing is
sent and the error is VaultUnavailable."""

import json
import os
import pwd
import socket
import stat
import struct
import time

from keyring.errors import KeyringError

try:
    from keyring.errors import KeyringLocked
except ImportError:  # keyring before 23.5
    KeyringLocked = KeyringError

CONNECT_TIMEOUT = 2.0
ANSWER_TIMEOUT = 10.0
# vaultd may refresh a session first, within 20 s (docs/protocol.md, `token`).
TOKEN_TIMEOUT = 30.0
MAX_ANSWER_BYTES = 1 << 20
MAX_SOCKET_PATH_BYTES = 107

LOCKED_CODES = {"locked", "passphrase_required", "new_passphrase_required", "wrong_passphrase"}


class VaultError(KeyringError):
    """A failure vaultd reported, or one reaching it. ``code`` is the protocol's error code
    (docs/protocol.md); classify by it, never by the message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class VaultLocked(VaultError, KeyringLocked):
    """The vault is locked: ``vaultctl unlock``."""


class VaultUnavailable(VaultError, RuntimeError):
    """No vaultd of this user answers (not running, or the socket failed the checks). A
    RuntimeError, as keyring expects from an unusable backend's ``priority``."""

    def __init__(self, message):
        super().__init__("unavailable", message)


START_HINT = "start it with 'vaultctl status' (which starts vaultd) or 'systemctl --user start vaultd.socket'"


def socket_path(environ=None):
    """Where vaultd listens, as SocketLocation.swift decides: $VAULT_SOCKET, else
    $XDG_RUNTIME_DIR/vault/vault.sock, else ~/.local/state/vault/vault.sock (the home from $HOME,
    else the user database), else /tmp/vault-UID/vault.sock when there is no home at all."""
    environ = os.environ if environ is None else environ
    explicit = environ.get("VAULT_SOCKET")
    if explicit:
        return explicit
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        return runtime + "/vault/vault.sock"
    home = environ.get("HOME", "")
    if not home.startswith("/"):
        try:
            home = pwd.getpwuid(os.getuid()).pw_dir or ""
        except KeyError:
            home = ""
    if not home.startswith("/"):
        return "/tmp/vault-%d/vault.sock" % os.getuid()
    return (home[:-1] if home.endswith("/") else home) + "/.local/state/vault/vault.sock"


class UntrustedPath(Exception):
    pass


def _describe(path, what, status=None):
    owner = "" if status is None else " (owner uid %d, mode %04o)" % (status.st_uid, stat.S_IMODE(status.st_mode))
    return "%s %s%s" % (path, what, owner)


def check_private_directory(directory, uid=None):
    """PrivateDirectory.check: False when the directory does not exist; raises UntrustedPath
    when it, examined without following a symbolic link, is not a directory owned by ``uid``
    without group or other permissions, or when a directory above it (symbolic links there
    resolved) is owned by someone other than root or ``uid``, or writable by group or others
    without being a root-owned sticky directory."""
    uid = os.getuid() if uid is None else uid
    while len(directory) > 1 and directory.endswith("/"):
        directory = directory[:-1]
    if not directory.startswith("/"):
        raise UntrustedPath(_describe(directory, "is a relative path, not an absolute one"))
    if directory == "/":
        raise UntrustedPath("the root directory is not a private directory")
    parent = os.path.dirname(directory) or "/"
    name = os.path.basename(directory)
    resolved = os.path.realpath(parent)
    if not os.path.isdir(resolved):
        return False
    current = "/"
    for component in [""] + [part for part in resolved.split("/") if part]:
        current = "/" if not component else (current.rstrip("/") + "/" + component)
        status = os.lstat(current)
        if stat.S_ISLNK(status.st_mode):
            raise UntrustedPath(_describe(current, "is a symbolic link", status))
        if not stat.S_ISDIR(status.st_mode):
            raise UntrustedPath(_describe(current, "is not a directory", status))
        if status.st_uid not in (0, uid):
            raise UntrustedPath(_describe(current, "belongs to another user", status))
        sticky = status.st_mode & stat.S_ISVTX and status.st_uid == 0
        if status.st_mode & 0o022 and not sticky:
            raise UntrustedPath(_describe(current, "is writable by others", status))
    target = resolved.rstrip("/") + "/" + name
    try:
        status = os.lstat(target)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(status.st_mode):
        raise UntrustedPath(_describe(directory, "is a symbolic link", status))
    if not stat.S_ISDIR(status.st_mode):
        raise UntrustedPath(_describe(directory, "is not a directory", status))
    if status.st_uid != uid:
        raise UntrustedPath(_describe(directory, "belongs to another user", status))
    if status.st_mode & 0o077:
        raise UntrustedPath(_describe(directory, "is open to group or others", status))
    return True


class Connection:
    """One connection to vaultd, checked before anything is sent. Use as a context manager."""

    def __init__(self, path=None):
        self.path = path or socket_path()
        self._next_id = 1
        self._buffer = b""
        if len(os.fsencode(self.path)) > MAX_SOCKET_PATH_BYTES:
            raise VaultUnavailable(
                "the socket path %s is longer than the %d bytes a Unix socket allows: set VAULT_SOCKET "
                "(or XDG_RUNTIME_DIR) to a shorter path" % (self.path, MAX_SOCKET_PATH_BYTES))
        try:
            exists = check_private_directory(os.path.dirname(self.path))
        except UntrustedPath as problem:
            raise VaultUnavailable("refusing to talk to vaultd on %s, nothing was sent: %s" % (self.path, problem)) from None
        except OSError as error:
            raise VaultUnavailable("cannot examine the directory of %s, nothing was sent: %s" % (self.path, error.strerror)) from None
        if not exists:
            raise VaultUnavailable("vaultd is not running (no %s): %s" % (os.path.dirname(self.path), START_HINT))
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._socket.settimeout(CONNECT_TIMEOUT)
            try:
                self._socket.connect(self.path)
            except (FileNotFoundError, ConnectionRefusedError):
                raise VaultUnavailable("vaultd is not running on %s: %s" % (self.path, START_HINT)) from None
            except socket.timeout:
                raise VaultUnavailable("vaultd on %s did not accept a connection within %g s" % (self.path, CONNECT_TIMEOUT)) from None
            except OSError as error:
                raise VaultUnavailable("cannot connect to vaultd on %s: %s" % (self.path, error.strerror)) from None
            self._check_peer()
        except BaseException:
            self._socket.close()
            raise

    def _check_peer(self):
        size = struct.calcsize("3i")
        try:
            pid, uid, _ = struct.unpack("3i", self._socket.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, size))
        except OSError as error:
            raise VaultUnavailable("cannot tell who listens on %s (SO_PEERCRED: %s), so nothing was sent" % (self.path, error.strerror)) from None
        if uid != os.getuid():
            raise VaultUnavailable(
                "the process listening on %s (pid %d) runs as uid %d, not as you (uid %d), so it is not your vaultd "
                "and nothing was sent: stop it or have it removed, or set VAULT_SOCKET to your own vaultd's socket"
                % (self.path, pid, uid, os.getuid()))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._socket.close()

    def request(self, op, timeout=ANSWER_TIMEOUT, **fields):
        """Sends one request and returns its ``result``; raises VaultError with vaultd's code."""
        request_id = self._next_id
        self._next_id += 1
        message = dict(fields, op=op, id=request_id)
        try:
            line = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        except UnicodeEncodeError:
            raise VaultError("bad_request", "the password or a name is not valid Unicode text (a lone surrogate), so vault cannot store it") from None
        deadline = time.monotonic() + timeout
        try:
            self._socket.settimeout(max(0.1, deadline - time.monotonic()))
            self._socket.sendall(line)
            answer = self._read_line(deadline)
        except socket.timeout:
            raise VaultUnavailable("vaultd on %s did not answer within %g s; see its log" % (self.path, timeout)) from None
        except OSError as error:
            raise VaultUnavailable("the connection to vaultd on %s failed (%s); it may have stopped: see its log" % (self.path, error.strerror)) from None
        try:
            response = json.loads(answer)
        except ValueError:
            raise VaultError("internal", "vaultd sent an answer this client cannot read; are vaultd and vault-keyring the same version?") from None
        if not isinstance(response, dict) or response.get("id") != request_id:
            raise VaultError("internal", "vaultd answered another request; are vaultd and vault-keyring the same version?")
        if response.get("ok") is True and isinstance(response.get("result"), dict):
            return response["result"]
        error = response.get("error") if isinstance(response.get("error"), dict) else {}
        code = error.get("code") if isinstance(error.get("code"), str) else "internal"
        text = error.get("message") if isinstance(error.get("message"), str) else "vaultd reported an error without a message"
        if code in LOCKED_CODES:
            raise VaultLocked(code, text if "vaultctl unlock" in text else "%s: unlock it with 'vaultctl unlock'" % text)
        raise VaultError(code, text)

    def _read_line(self, deadline):
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout()
            self._socket.settimeout(remaining)
            chunk = self._socket.recv(65536)
            if not chunk:
                raise VaultUnavailable(
                    "vaultd on %s closed the connection without answering; it serves only the user it runs as, and may have stopped: see its log" % self.path)
            self._buffer += chunk
            if len(self._buffer) > MAX_ANSWER_BYTES:
                raise VaultError("internal", "vaultd's answer is larger than %d bytes" % MAX_ANSWER_BYTES)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line
