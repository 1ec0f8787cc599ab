#!/usr/bin/env python3
"""A local OAuth 2.0 server with the device authorization grant (RFC 8628) for vault's tests.

Usage: device_server.py STATE_DIR
Writes STATE_DIR/server.json ({"port", "client_id"}). POST /device (client_id) issues codes with
a 1-second interval; the token endpoint POST /token answers authorization_pending until the user
code is approved (POST /__approve {"user_code"}) or denied (POST /__deny), slow_down when polled
faster than the interval, and supports refresh_token. GET /__count. Stops when stdin closes.
"""
import json
import secrets
import threading
import time

from fixture_server import CountingHandler, serve
from urllib.parse import parse_qs, urlparse

CLIENT_ID = "device-client"
lock = threading.Lock()
codes = {}  # device_code -> {"user_code", "state", "last_poll", "expires"}
refresh_tokens = set()
counts = {"device": 0, "poll": 0, "slow_down": 0}


class Handler(CountingHandler):
    counts, lock = counts, lock

    def do_POST(self):
        raw = self.body_text()
        path = urlparse(self.path).path
        if path in ("/__approve", "/__deny"):
            user_code = json.loads(raw)["user_code"]
            with lock:
                for entry in codes.values():
                    if entry["user_code"] == user_code:
                        entry["state"] = "approved" if path == "/__approve" else "denied"
            return self.reply(200, {})
        form = {k: v[0] for k, v in parse_qs(raw).items()}
        if form.get("client_id") != CLIENT_ID:
            return self.reply(401, {"error": "invalid_client"})
        with lock:
            if path == "/device":
                counts["device"] += 1
                device_code, user_code = secrets.token_urlsafe(24), secrets.token_hex(2).upper() + "-" + secrets.token_hex(2).upper()
                codes[device_code] = {"user_code": user_code, "state": "pending", "last_poll": 0, "expires": time.time() + 60}
                return self.reply(200, {"device_code": device_code, "user_code": user_code,
                                        "verification_uri": "http://127.0.0.1/activate",
                                        "verification_uri_complete": "http://127.0.0.1/activate?code=" + user_code,
                                        "expires_in": 60, "interval": 1})
            if path == "/token":
                grant = form.get("grant_type")
                if grant == "refresh_token":
                    if form.get("refresh_token") not in refresh_tokens:
                        return self.reply(400, {"error": "invalid_grant"})
                    return self.reply(200, self.tokens())
                if grant != "urn:ietf:params:oauth:grant-type:device_code":
                    return self.reply(400, {"error": "unsupported_grant_type"})
                counts["poll"] += 1
                entry = codes.get(form.get("device_code"))
                if entry is None or entry["expires"] < time.time():
                    return self.reply(400, {"error": "expired_token"})
                now = time.time()
                too_fast = now - entry["last_poll"] < 0.9
                entry["last_poll"] = now
                if entry["state"] == "denied":
                    return self.reply(400, {"error": "access_denied"})
                if entry["state"] == "approved":
                    del codes[form["device_code"]]
                    return self.reply(200, self.tokens())
                if too_fast:
                    counts["slow_down"] += 1
                    return self.reply(400, {"error": "slow_down"})
                return self.reply(400, {"error": "authorization_pending"})
        self.reply(404, {"error": "not_found"})

    def tokens(self):
        refresh = secrets.token_urlsafe(18)
        refresh_tokens.add(refresh)
        return {"access_token": "dev-" + secrets.token_urlsafe(18), "token_type": "Bearer", "expires_in": 60, "refresh_token": refresh}


serve(Handler, {"client_id": CLIENT_ID})
