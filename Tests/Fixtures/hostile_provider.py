#!/usr/bin/env python3
"""A sign-in provider that answers the way a buggy or malicious one would, for vault's tests.

Usage: hostile_provider.py STATE_DIR
Writes STATE_DIR/server.json ({"port", "other_port"}) once listening on 127.0.0.1. Serves an
OAuth 2.0 token endpoint (/token), Supabase's (/auth/v1/token, /auth/v1/logout), a device
authorization endpoint (/device) and RFC 7009 revocation (/revoke). A second origin on
`other_port` records every request it gets (GET /__seen there: {"requests": N}); redirects point
at it, and it must see none.

Control: POST /__mode {"mode": M, ...} sets how the next answers look (GETs: raw, huge and
redirect; 404 otherwise):
  good               a valid grant with new tokens (expires_in 3600, rotated refresh token)
  grant              a valid grant with "fields" merged in (bad expires_in, tokens, ...)
  raw                HTTP "status" with "body" (text) as "content_type"
  huge               a 400 MiB body, streamed; "length": true sends its Content-Length
  redirect           307 to the second origin (same path), for every endpoint
  device             device codes with "fields" merged in (e.g. {"interval": 5000})
  revoke             revocation answers "status"/"body"/"content_type" (default 200, empty)
  fuzz               every answer a mutation of a valid one, from "seed"
GET /__log: {"answers": N, "issued": [refresh tokens of valid grants], "rejected": N (documented
"sign in again" answers sent), "requests": [...paths]}. Stops when its stdin closes.
"""
import json
import os
import random
import secrets
import sys
import threading
import time
from http.server import ThreadingHTTPServer

from fixture_server import JSONHandler, serve

lock = threading.Lock()
mode = {"mode": "good"}
log = {"answers": 0, "issued": [], "rejected": 0, "requests": []}
seen = {"requests": 0}
state = {"other_port": 0, "rng": random.Random(1)}


def grant(fields=None):
    refresh = "RT-" + secrets.token_urlsafe(18)
    answer = {"access_token": "AT-" + secrets.token_urlsafe(24), "token_type": "Bearer", "expires_in": 3600,
              "refresh_token": refresh, "user": {"id": "user-1", "email": "alice@example.com"}}
    answer.update(fields or {})
    return answer


def valid_tokens(answer):
    """Whether vault may store this grant (what its checks accept), for the fuzz log."""
    return isinstance(answer, dict) and answer.get("refresh_token") is not None


class Other(JSONHandler):
    def do_GET(self):
        if self.path == "/__seen":
            with lock:
                return self.reply(200, seen)
        self.record()

    def do_POST(self):
        self.record()

    def record(self):
        with lock:
            seen["requests"] += 1
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self.reply(200, grant())


class Handler(JSONHandler):
    def do_GET(self):
        """GETs (a secret engine's reads) get the modes' raw, huge and redirect answers too."""
        if self.path == "/__log":
            with lock:
                return self.reply(200, log)
        with lock:
            current = dict(mode)
            log["answers"] += 1
            log["requests"].append(self.path.split("?")[0])
        if not self.shaped(current):
            self.reply(404, {"error": "not_found"})

    def shaped(self, current):
        """Answers as the redirect, raw and huge modes say; False in any other mode."""
        name = current.get("mode")
        if name == "redirect":
            target = "http://127.0.0.1:%d%s" % (state["other_port"], self.path)
            self.reply(307, {"error": "moved"}, headers=[("Location", target)])
        elif name == "raw":
            self.reply(current.get("status", 200), current.get("body", "").encode(), content_type=current.get("content_type", "application/json"))
        elif name == "huge":
            self.huge(current.get("length", False))
        else:
            return False
        return True

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0]
        if path == "/__mode":
            with lock:
                mode.clear()
                mode.update(json.loads(raw))
                if mode.get("mode") == "fuzz":
                    state["rng"] = random.Random(mode.get("seed", 1))
            return self.reply(200, {})
        with lock:
            current = dict(mode)
            log["answers"] += 1
            log["requests"].append(path)
        name = current.get("mode")
        if path == "/revoke" and name != "redirect":
            if name == "revoke":
                body = current.get("body", "")
                return self.reply(current.get("status", 200), body.encode(), content_type=current.get("content_type", "text/html"))
            return self.reply(200)
        if path == "/auth/v1/logout" and name not in ("raw", "redirect", "fuzz"):
            return self.reply(204)
        if name == "fuzz":
            return self.fuzz(path)
        if self.shaped(current):
            return
        if path == "/device":
            codes = {"device_code": "DC-" + secrets.token_urlsafe(8), "user_code": "WDJB-MJHT",
                     "verification_uri": "http://127.0.0.1/device", "expires_in": 600, "interval": 1}
            codes.update(current.get("fields", {}) if name == "device" else {})
            return self.reply(200, codes)
        answer = grant(current.get("fields") if name == "grant" else None)
        if name == "good":
            with lock:
                log["issued"].append(answer["refresh_token"])
        return self.reply(200, answer)

    def huge(self, with_length):
        """400 MiB of JSON-looking bytes, written until the client hangs up."""
        size = 400 << 20
        chunk = b"[" + b"0," * (1 << 19)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if with_length:
            self.send_header("Content-Length", str(size))
        else:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = 0
        try:
            while sent < size:
                if with_length:
                    self.wfile.write(chunk)
                else:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
            if not with_length:
                self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def fuzz(self, path):
        """A mutation of a valid answer: types, sizes, numbers, encodings, statuses, slow and cut."""
        with lock:
            rng = state["rng"]
            choice = rng.randrange(16)
            value = rng.choice([None, True, -1, 0, 1e20, -1e300, "1e20", "inf", "nan", "3600", "", "x" * 70000, [], {},
                                "a b", "\u001b]0;t\u0007", "\u202e", 2 ** 70, 5000])
            field = rng.choice(["access_token", "refresh_token", "expires_in", "expires_at", "token_type", "scope", "user",
                                "device_code", "user_code", "verification_uri", "interval"])
            status = rng.choice([200, 201, 204, 301, 302, 307, 400, 401, 403, 404, 409, 418, 429, 500, 502, 503])
            delay = rng.choice([0, 0, 0, 0.2, 1.5])
        if path == "/device":
            base = {"device_code": "DC-1", "user_code": "WDJB-MJHT", "verification_uri": "http://127.0.0.1/device",
                    "expires_in": 600, "interval": 1}
        else:
            base = grant()
        with lock:
            # Every refresh token sent, whatever else the answer holds: the only ones vault may store.
            log["issued"].append(base.get("refresh_token"))
        if choice == 0:
            return self.reply(200, base)
        if choice == 1:
            base[field] = value
            if field == "refresh_token" and isinstance(value, str):
                # What is sent is what vault may keep, if it passes vault's checks ("3600" does).
                with lock:
                    log["issued"].append(value)
            return self.reply(200, base)
        if choice == 2:
            with lock:
                log["issued"].pop()
                log["rejected"] += 1
            return self.reply(400, {"error": "invalid_grant", "error_description": "gone\u001b[2J", "code": "refresh_token_not_found",
                                    "message": "gone"})
        if choice == 3:
            return self.reply(status, {"error": rng.choice(["invalid_client", "server_error", "slow_down", "x" * 5000])})
        if choice == 4:
            return self.reply(status, b"<html>\x1b[2Jproxy</html>", content_type="text/html")
        if choice == 5:
            return self.reply(200, json.dumps(base).encode()[: rng.randrange(1, 40)])
        if choice == 6:
            return self.reply(200, json.dumps(base).encode("utf-16"))
        if choice == 7:
            time.sleep(delay)
            return self.reply(200, base)
        if choice == 8:
            # Cut: headers promising more than is sent, then the connection closes.
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "500")
            self.end_headers()
            self.wfile.write(json.dumps(base).encode()[:20])
            self.close_connection = True
            return
        if choice == 9:
            self.close_connection = True
            self.connection.close()
            return
        if choice == 10:
            return self.reply(307, {}, headers=[("Location", "http://127.0.0.1:%d/steal" % state["other_port"])])
        if choice == 11:
            return self.reply(200, [base])
        if choice == 12:
            return self.reply(200, json.dumps({k: str(v) for k, v in base.items()}).encode())
        if choice == 13:
            base["user"] = {"id": value, "email": value}
            return self.reply(200, base)
        if choice == 14:
            return self.reply(status, base)
        base["expires_in"] = value
        base["access_token"] = value
        return self.reply(200, base)


if __name__ == "__main__":
    other = ThreadingHTTPServer(("127.0.0.1", 0), Other)
    other.daemon_threads = True
    threading.Thread(target=other.serve_forever, daemon=True).start()
    state["other_port"] = other.server_port
    serve(Handler, {"other_port": other.server_port})
