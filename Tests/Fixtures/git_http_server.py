#!/usr/bin/env python3
"""git's smart HTTP protocol with Basic authentication, for vault's git credential helper tests.

Usage: git_http_server.py STATE_DIR
Creates the bare repository STATE_DIR/repo.git (pushes allowed) and serves it at
http://127.0.0.1:PORT/repo.git through `git http-backend` (run as a CGI program). Every request
must carry Basic credentials matching STATE_DIR/users.json ({"user": "password"}), read anew on
each request, so a test changes a password by rewriting that file; otherwise 401 with
WWW-Authenticate. GET /__count answers {"unauthorized": N, "authorized": M}.
Loopback only; stops when its parent closes its stdin (fixture_server.serve).
"""
import base64
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture_server import CountingHandler, serve  # noqa: E402

state = sys.argv[1]
subprocess.run(["git", "init", "-q", "--bare", os.path.join(state, "repo.git")], check=True)
subprocess.run(["git", "-C", os.path.join(state, "repo.git"), "config", "http.receivepack", "true"], check=True)
with open(os.path.join(state, "users.json"), "w") as out:
    json.dump({}, out)


class GitHandler(CountingHandler):
    counts = {"unauthorized": 0, "authorized": 0}

    def do_GET(self):
        if self.path == "/__count":
            return super().do_GET()
        self.backend()

    def do_POST(self):
        self.backend()

    def authorized_user(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return None
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return None
        with open(os.path.join(state, "users.json")) as users:
            return user if json.load(users).get(user) == password else None

    def request_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def backend(self):
        body = self.request_body()
        user = self.authorized_user()
        with self.lock:
            self.counts["authorized" if user else "unauthorized"] += 1
        if user is None:
            return self.reply(401, b"authentication required\n", "text/plain", [("WWW-Authenticate", 'Basic realm="git"')])
        path, _, query = self.path.partition("?")
        environment = dict(
            os.environ, GIT_PROJECT_ROOT=state, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path, QUERY_STRING=query,
            REQUEST_METHOD=self.command, CONTENT_TYPE=self.headers.get("Content-Type", ""),
            CONTENT_LENGTH=str(len(body)), REMOTE_USER=user, REMOTE_ADDR="127.0.0.1",
            HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""), GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        output = subprocess.run(["git", "http-backend"], input=body, env=environment, capture_output=True).stdout
        head, _, content = output.partition(b"\r\n\r\n") if b"\r\n\r\n" in output else output.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode().splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name.lower() != "content-length":
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)


serve(GitHandler, {})
