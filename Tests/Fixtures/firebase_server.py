#!/usr/bin/env python3
"""A local Firebase Auth for vault's tests, serving the documented requests under the paths the
official emulator uses: /identitytoolkit.googleapis.com/v1/accounts:signInWithPassword,
accounts:signUp, accounts:sendOobCode, and /securetoken.googleapis.com/v1/token.

Usage: firebase_server.py STATE_DIR
Writes STATE_DIR/server.json ({"port", "api_key"}). ID tokens live 2 s ("expiresIn": "2", a string,
as Firebase sends it); refresh tokens do not rotate. Seeded user: alice@example.com /
alice-password. POST /__disable {"email"} disables a user. GET /__count. Stops when stdin closes.
"""
import json
import secrets
import threading

from fixture_server import JSONHandler, serve
from urllib.parse import parse_qs, urlparse

API_KEY = "AIza-test-" + secrets.token_hex(6)
LIFETIME = "2"
lock = threading.Lock()
users = {"alice@example.com": {"localId": "uid-alice", "password": "alice-password", "disabled": False}}
refresh_tokens = {}
counts = {"signIn": 0, "signUp": 0, "sendOobCode": 0, "refresh": 0}


class Handler(JSONHandler):
    def error(self, message):
        self.reply(400, {"error": {"code": 400, "message": message, "errors": [{"message": message, "domain": "global", "reason": "invalid"}]}})

    def do_GET(self):
        if self.path == "/__count":
            with lock:
                return self.reply(200, counts)
        self.reply(404, {})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        url = urlparse(self.path)
        if url.path == "/__disable":
            with lock:
                users[json.loads(raw)["email"]]["disabled"] = True
            return self.reply(200, {})
        if parse_qs(url.query).get("key", [""])[0] != API_KEY:
            return self.reply(400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key."}})
        base = "/identitytoolkit.googleapis.com/v1/accounts:"
        if url.path == "/securetoken.googleapis.com/v1/token":
            return self.refresh(parse_qs(raw.decode()))
        body = json.loads(raw or b"{}")
        with lock:
            if url.path == base + "signInWithPassword":
                counts["signIn"] += 1
                user = users.get(body.get("email"))
                if not user or user["password"] != body.get("password"):
                    return self.error("INVALID_LOGIN_CREDENTIALS")
                if user["disabled"]:
                    return self.error("USER_DISABLED")
                return self.reply(200, self.tokens(body["email"], registered=True))
            if url.path == base + "signUp":
                counts["signUp"] += 1
                if body.get("email") in users:
                    return self.error("EMAIL_EXISTS")
                if len(body.get("password", "")) < 6:
                    return self.error("WEAK_PASSWORD : Password should be at least 6 characters")
                users[body["email"]] = {"localId": "uid-" + secrets.token_hex(4), "password": body["password"], "disabled": False}
                return self.reply(200, self.tokens(body["email"], registered=False))
            if url.path == base + "sendOobCode":
                counts["sendOobCode"] += 1
                if body.get("requestType") != "PASSWORD_RESET":
                    return self.error("INVALID_REQ_TYPE")
                if body.get("email") not in users:
                    return self.error("EMAIL_NOT_FOUND")
                return self.reply(200, {"email": body["email"]})
        self.reply(404, {"error": {"code": 404, "message": "NOT_FOUND"}})

    def tokens(self, email, registered):
        refresh = "rt-" + secrets.token_urlsafe(24)
        refresh_tokens[refresh] = email
        return {"kind": "identitytoolkit#VerifyPasswordResponse", "idToken": "id-" + secrets.token_urlsafe(24),
                "refreshToken": refresh, "expiresIn": LIFETIME, "localId": users[email]["localId"], "email": email,
                "registered": registered}

    def refresh(self, form):
        with lock:
            counts["refresh"] += 1
            if form.get("grant_type", [""])[0] != "refresh_token":
                return self.error("INVALID_GRANT_TYPE")
            token = form.get("refresh_token", [""])[0]
            if not token:
                return self.error("MISSING_REFRESH_TOKEN")
            email = refresh_tokens.get(token)
            if email is None:
                return self.error("INVALID_REFRESH_TOKEN")
            if users[email]["disabled"]:
                return self.error("USER_DISABLED")
            id_token = "id-" + secrets.token_urlsafe(24)
            return self.reply(200, {"access_token": id_token, "expires_in": LIFETIME, "token_type": "Bearer",
                                    "refresh_token": token, "id_token": id_token, "user_id": users[email]["localId"],
                                    "project_id": "vault-tests"})


serve(Handler, {"api_key": API_KEY})
