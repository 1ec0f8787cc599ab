"""pypiserver on 127.0.0.1 that requires authentication for everything (htpasswd, passlib),
serving one wheel, `vault-test-pkg` 1.0, built here by hand. The user is `alice`; her random
password goes into STATE_DIR/password (mode 0600) for the test. GET /__count answers
{"authorized": N, "anonymous": M}. Started by PythonFixture (server.json, stops when stdin closes)."""
import base64
import hashlib
import json
import os
import secrets
import sys
import threading
import zipfile

from passlib.apache import HtpasswdFile
import pypiserver

from fixture_server import serve_wsgi

state = sys.argv[1]
packages = os.path.join(state, "packages")
os.makedirs(packages, exist_ok=True)

password = secrets.token_urlsafe(18)
descriptor = os.open(os.path.join(state, "password"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(descriptor, password.encode())
os.close(descriptor)
htpasswd = HtpasswdFile(os.path.join(state, "htpasswd"), new=True)
htpasswd.set_password("alice", password)
htpasswd.save()


def record(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


files = {
    "vault_test_pkg/__init__.py": b"MESSAGE = 'installed from the private index'\n",
    "vault_test_pkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: vault-test-pkg\nVersion: 1.0\n",
    "vault_test_pkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: vault-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rows = [record(name, data) for name, data in files.items()] + ["vault_test_pkg-1.0.dist-info/RECORD,,"]
with zipfile.ZipFile(os.path.join(packages, "vault_test_pkg-1.0-py3-none-any.whl"), "w") as wheel:
    for name, data in files.items():
        wheel.writestr(name, data)
    wheel.writestr("vault_test_pkg-1.0.dist-info/RECORD", "\n".join(rows) + "\n")

index = pypiserver.app(roots=[packages], password_file=os.path.join(state, "htpasswd"),
                       authenticate=["download", "list", "update"])
counts = {"authorized": 0, "anonymous": 0}
lock = threading.Lock()


def application(environ, start_response):
    if environ.get("PATH_INFO") == "/__count":
        with lock:
            body = json.dumps(counts).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]
    with lock:
        counts["authorized" if environ.get("HTTP_AUTHORIZATION") else "anonymous"] += 1
    return index(environ, start_response)


serve_wsgi(application, {})
