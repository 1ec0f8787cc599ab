#!/usr/bin/env python3
"""A local Supabase Auth (GoTrue) for vault's tests, following the documented requests,
responses and error bodies (see shared reference: token endpoints).

Usage: supabase_server.py STATE_DIR
Writes STATE_DIR/server.json ({"port", "anon_key"}) once listening on 127.0.0.1. Access tokens are
JWTs (HS256 under a secret of the run) and live 2 s; refresh tokens rotate, with a 2 s reuse
interval. The real Python client, supabase_auth, accepts every answer
(Tests/Fixtures/supabase_client_check.py, run by SupabaseTests). Seeded users: alice@example.com /
alice-password (confirmed), pending@example.com / pending-password (email not confirmed).
GET /auth/v1/user answers the user of a live access token.
Test controls: GET /__count, POST /__advance {"seconds": S} (moves this server's clock ahead,
for access tokens and the reuse interval), POST /__fault {"mode": "html|missing|500|reset|slow", "count": N}
(applies to the next N refresh requests), or {"mode": "kill", "pid": P, "count": 1}: answer the
refresh normally, then SIGKILL process P at once. Stops when its stdin closes.
"""
import base64
import hashlib
import hmac
import json
import os
import secrets
import signal  # noqa: F401
import threading
import time

from fixture_server import JSONHandler, serve
from urllib.parse import parse_qs, urlparse

ACCESS_LIFETIME = 2
REUSE_INTERVAL = float(os.environ.get("SUPABASE_REUSE_SECONDS", "2"))  # hosted Supabase: 10
ANON_KEY = "anon-" + secrets.token_hex(8)

lock = threading.Lock()
users = {
    "alice@example.com": {"id": "user-alice", "password": "alice-password", "confirmed": True},
    "pending@example.com": {"id": "user-pending", "password": "pending-password", "confirmed": False},
}
refresh_tokens = {}  # token -> {"session", "revoked_at", "child"}
sessions = {}  # session id -> {"user", "active", "latest"}
access_tokens = {}  # token -> {"session", "expires"}
counts = {"token": 0, "refresh": 0, "logout": 0, "signup": 0, "recover": 0}
fault = {"mode": None, "count": 0}
JWT_SECRET = secrets.token_bytes(32)
# Seconds the tests moved this server's clock ahead (POST /__advance), as they move vaultd's.
clock = {"offset": 0.0}


def now():
    return time.time() + clock["offset"]


def user_object(email):
    """A user as GoTrue answers it: what supabase_auth's User model requires and more."""
    user = users[email]
    created = user.setdefault("created_at", time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime()))
    confirmed = created if user.get("confirmed", True) else None
    body = {
        "id": user["id"], "aud": "authenticated", "role": "authenticated", "email": email, "phone": "",
        "email_confirmed_at": confirmed, "confirmed_at": confirmed, "last_sign_in_at": created,
        "app_metadata": {"provider": "email", "providers": ["email"]}, "user_metadata": {},
        "identities": [], "created_at": created, "updated_at": created, "is_anonymous": False,
    }
    if not confirmed:
        body["confirmation_sent_at"] = created
    return body


def access_token(session_id, expires):
    """A JWT as GoTrue issues them (HS256 over the claims it puts in): clients decode its claims."""
    user = sessions[session_id]["user"]
    claims = {
        "sub": users[user]["id"], "aud": "authenticated", "role": "authenticated", "email": user,
        "session_id": session_id, "iat": int(now()), "exp": int(expires), "aal": "aal1", "is_anonymous": False,
        "jti": secrets.token_hex(8),
    }

    def part(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signed = part(b'{"alg":"HS256","typ":"JWT"}') + "." + part(json.dumps(claims, separators=(",", ":")).encode())
    return signed + "." + part(hmac.new(JWT_SECRET, signed.encode(), hashlib.sha256).digest())


def new_session_tokens(session_id):
    user = sessions[session_id]["user"]
    current = now()
    access, refresh = access_token(session_id, current + ACCESS_LIFETIME), secrets.token_urlsafe(18)
    access_tokens[access] = {"session": session_id, "expires": current + ACCESS_LIFETIME}
    refresh_tokens[refresh] = {"session": session_id, "revoked_at": None, "child": None}
    sessions[session_id]["latest"] = refresh
    return {
        "access_token": access, "token_type": "bearer", "expires_in": ACCESS_LIFETIME,
        "expires_at": int(current + ACCESS_LIFETIME), "refresh_token": refresh,
        "user": user_object(user),
    }


def start_session(email):
    session_id = secrets.token_hex(8)
    sessions[session_id] = {"user": email, "active": True, "latest": None}
    return new_session_tokens(session_id)


class Handler(JSONHandler):
    def error(self, status, code, message):
        if self.headers.get("X-Supabase-Api-Version"):
            # The 2024-01-01 API's errors, marked as such in a header as GoTrue marks them.
            self.reply(status, {"code": code, "message": message}, headers=[("X-Supabase-Api-Version", "2024-01-01")])
        else:
            self.reply(status, {"code": status, "error_code": code, "msg": message}, headers=[("x-sb-error-code", code)])

    def do_GET(self):
        if self.path == "/__count":
            with lock:
                return self.reply(200, counts)
        if urlparse(self.path).path == "/auth/v1/user":
            if self.headers.get("apikey") != ANON_KEY:
                return self.reply(401, {"message": "Invalid API key"})
            token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            with lock:
                entry = access_tokens.get(token)
                if entry is None or entry["expires"] < now() or not sessions[entry["session"]]["active"]:
                    return self.error(403, "bad_jwt", "invalid JWT: unable to parse or verify signature, token is expired")
                return self.reply(200, user_object(sessions[entry["session"]]["user"]))
        self.reply(404, {"message": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        url = urlparse(self.path)
        query = parse_qs(url.query)
        if url.path == "/__advance":
            with lock:
                clock["offset"] += float(json.loads(raw)["seconds"])
            return self.reply(200, {})
        if url.path == "/__fault":
            with lock:
                fault.update(json.loads(raw))
            return self.reply(200, {})
        if self.headers.get("apikey") != ANON_KEY:
            return self.reply(401, {"message": "Invalid API key"})
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            return self.error(400, "bad_json", "could not parse request body as JSON")
        if url.path == "/auth/v1/token":
            grant = (query.get("grant_type") or [""])[0]
            with lock:
                counts["token"] += 1
            if grant == "password":
                return self.password_grant(body)
            if grant == "refresh_token":
                return self.refresh_grant(body)
            return self.error(400, "validation_failed", "unsupported grant_type")
        if url.path == "/auth/v1/signup":
            return self.signup(body)
        if url.path == "/auth/v1/recover":
            with lock:
                counts["recover"] += 1
            return self.reply(200, {})
        if url.path == "/auth/v1/logout":
            return self.logout()
        self.reply(404, {"message": "not found"})

    def password_grant(self, body):
        with lock:
            user = users.get(body.get("email", ""))
            if not user or user["password"] != body.get("password"):
                return self.error(400, "invalid_credentials", "Invalid login credentials")
            if not user["confirmed"]:
                return self.error(400, "email_not_confirmed", "Email not confirmed")
            return self.reply(200, start_session(body["email"]))

    def refresh_grant(self, body):
        with lock:
            counts["refresh"] += 1
            mode = fault["mode"] if fault["count"] > 0 else None
            if mode:
                fault["count"] -= 1
        if mode == "html":
            return self.reply(200, b"<html><body>Bad gateway</body></html>", content_type="text/html")
        if mode == "missing":
            return self.reply(200, {"token_type": "bearer", "expires_in": 3600})
        if mode == "500":
            return self.reply(500, {"message": "internal error"})
        if mode == "reset":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if mode == "slow":
            time.sleep(5)
        if mode == "kill":
            self.kill_after_answer = fault.get("pid")
        token = body.get("refresh_token", "")
        with lock:
            if len(token) < 12:
                return self.error(400, "validation_failed", "refresh token too short")
            entry = refresh_tokens.get(token)
            if entry is None:
                return self.error(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
            session = sessions[entry["session"]]
            if not session["active"]:
                return self.error(400, "session_not_found", "Session not found")
            if entry["revoked_at"] is not None:
                if now() - entry["revoked_at"] <= REUSE_INTERVAL:
                    # Within the reuse interval: the currently active session.
                    return self.reply(200, new_session_tokens_for_reuse(entry["session"]))
                session["active"] = False
                return self.error(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
            entry["revoked_at"] = now()
            self.reply(200, new_session_tokens(entry["session"]))
        pid = getattr(self, "kill_after_answer", None)
        if pid:
            self.wfile.flush()
            os.kill(int(pid), 9)

    def signup(self, body):
        email, password = body.get("email", ""), body.get("password", "")
        with lock:
            counts["signup"] += 1
            if "@" not in email:
                return self.error(400, "email_address_invalid", "Email address is invalid")
            if email in users:
                return self.error(400, "user_already_exists", "User already registered")
            if len(password) < 6:
                return self.error(400, "weak_password", "Password should be at least 6 characters.")
            confirm = email.startswith("confirm")
            users[email] = {"id": "user-" + secrets.token_hex(4), "password": password, "confirmed": not confirm}
            if confirm:
                return self.reply(200, user_object(email))
            return self.reply(200, start_session(email))

    def logout(self):
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        with lock:
            counts["logout"] += 1
            entry = access_tokens.get(token)
            if entry is None or entry["expires"] < now():
                return self.error(401, "bad_jwt", "invalid JWT")
            sessions[entry["session"]]["active"] = False
        return self.reply(204)


def new_session_tokens_for_reuse(session_id):
    """The active session's tokens: the latest refresh token, a fresh access token."""
    latest = sessions[session_id]["latest"]
    user = sessions[session_id]["user"]
    current = now()
    access = access_token(session_id, current + ACCESS_LIFETIME)
    access_tokens[access] = {"session": session_id, "expires": current + ACCESS_LIFETIME}
    return {
        "access_token": access, "token_type": "bearer", "expires_in": ACCESS_LIFETIME,
        "expires_at": int(current + ACCESS_LIFETIME), "refresh_token": latest,
        "user": user_object(user),
    }


serve(Handler, {"anon_key": ANON_KEY})
