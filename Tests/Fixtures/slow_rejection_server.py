#!/usr/bin/env python3
"""A local OAuth 2.0 token endpoint that holds its refusal of a refresh, for vault's tests.

Usage: slow_rejection_server.py STATE_DIR
Writes STATE_DIR/server.json ({"port"}). POST /token:
- grant_type=password: 200 with a new access and refresh token ("AT-login-N", "RT-login-N", an
  hour's lifetime); with password "escape", 400 invalid_grant whose error_description carries
  terminal escape sequences (an OSC retitle, a screen clear).
- grant_type=refresh_token: counted, then held until POST /__release (at most 20 s), then
  400 invalid_grant: the refresh token has been revoked.
GET /__count answers {"password": N, "refresh": N}. Stops when stdin closes.
"""
import threading

from fixture_server import CountingHandler, serve
from urllib.parse import parse_qs, urlparse

lock = threading.Lock()
released = threading.Event()
counts = {"password": 0, "refresh": 0}


class Handler(CountingHandler):
    counts, lock = counts, lock

    def do_POST(self):
        raw = self.body_text()
        path = urlparse(self.path).path
        if path == "/__release":
            released.set()
            return self.reply(200, {})
        if path != "/token":
            return self.reply(404, {})
        form = {k: v[0] for k, v in parse_qs(raw).items()}
        grant = form.get("grant_type")
        if grant == "password":
            if form.get("password") == "escape":
                return self.reply(400, {"error": "invalid_grant",
                                        "error_description": "\x1b]0;pwned\x07\x1b[2J\x1b[31mbad password\x1b[0m"})
            with lock:
                counts["password"] += 1
                n = counts["password"]
            return self.reply(200, {"access_token": "AT-login-%d" % n, "token_type": "Bearer", "expires_in": 3600,
                                    "refresh_token": "RT-login-%d" % n})
        if grant == "refresh_token":
            with lock:
                counts["refresh"] += 1
            released.wait(20)
            return self.reply(400, {"error": "invalid_grant", "error_description": "the refresh token was revoked"})
        return self.reply(400, {"error": "unsupported_grant_type"})


serve(Handler, {})
