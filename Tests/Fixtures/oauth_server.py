#!/usr/bin/env python3
"""A real OAuth 2.0 authorization server for vault's tests: django-oauth-toolkit on 127.0.0.1.

Usage: oauth_server.py STATE_DIR
Writes STATE_DIR/server.json ({"port", "client_id", "client_secret", "public_client_id", "username",
"password"}) once it listens. Access tokens live 3 seconds (OAUTH_TOKEN_SECONDS in the environment: that many); refresh tokens rotate (no grace period).
GET /count answers {"token": N, "resource": M}: how many requests reached the token endpoint and
the two test resources. GET /api/resource answers 200 for the newest access token the server
issued and 401 for any other (expiry is not checked: a loaded test machine may take longer than
a token's lifetime to use it); GET /api/reject answers 401 always.
POST /__hold?seconds=S makes every later token request wait S seconds before django answers it
(a slow server, so that simultaneous refreshes overlap).
Loopback only; stops when its parent closes its stdin.
"""
import json
import os
import sys
import threading
import time

from fixture_server import serve_wsgi

import django
from django.conf import settings

state = sys.argv[1]
settings.configure(
    DEBUG=False,
    SECRET_KEY="vault-tests-only",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "oauth2_provider"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(state, "db.sqlite3")}},
    MIDDLEWARE=[],
    USE_TZ=True,
    PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
    OAUTH2_PROVIDER={
        "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("OAUTH_TOKEN_SECONDS", "3")),
        "ROTATE_REFRESH_TOKEN": True,
        "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    },
)
django.setup()

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.urls import include, path  # noqa: E402

urlpatterns = [path("o/", include("oauth2_provider.urls", namespace="oauth2_provider"))]

call_command("migrate", verbosity=0)
from django.contrib.auth.models import User  # noqa: E402
from oauth2_provider.models import Application  # noqa: E402

user = User.objects.create_user("alice", "alice@example.com", "alice-password")
client_secret = "vault-test-client-secret"
application = Application.objects.create(
    name="vault tests",
    client_type=Application.CLIENT_CONFIDENTIAL,
    authorization_grant_type=Application.GRANT_PASSWORD,
    client_secret=client_secret,
    user=user,
)

# A public client (no secret), as a native app or CLI registers: what requests-oauthlib and
# authlib sign in with in the session import tests.
public_application = Application.objects.create(
    name="vault tests, public",
    client_type=Application.CLIENT_PUBLIC,
    authorization_grant_type=Application.GRANT_PASSWORD,
    user=user,
)

counts = {"token": 0, "resource": 0}
hold = {"seconds": 0.0}
lock = threading.Lock()
django_app = WSGIHandler()


def resource(environ, start_response):
    """A protected resource: only the newest access token is accepted (/api/reject: none)."""
    from oauth2_provider.models import AccessToken

    with lock:
        counts["resource"] += 1
    presented = environ.get("HTTP_AUTHORIZATION", "").removeprefix("Bearer ")
    newest = AccessToken.objects.order_by("-id").first()
    accepted = environ.get("PATH_INFO") == "/api/resource" and newest is not None and newest.token == presented
    start_response("200 OK" if accepted else "401 Unauthorized", [("Content-Type", "application/json")])
    return [b'{"ok": true}' if accepted else b'{"error": "invalid_token"}']


def app(environ, start_response):
    if environ.get("PATH_INFO") == "/count":
        with lock:
            body = json.dumps(counts).encode()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [body]
    if environ.get("PATH_INFO") == "/__hold":
        with lock:
            hold["seconds"] = float(environ.get("QUERY_STRING", "").partition("seconds=")[2] or 0)
        start_response("200 OK", [("Content-Type", "application/json")])
        return [b"{}"]
    if environ.get("PATH_INFO") in ("/api/resource", "/api/reject"):
        return resource(environ, start_response)
    if environ.get("PATH_INFO") == "/o/token/":
        with lock:
            counts["token"] += 1
            delay = hold["seconds"]
        time.sleep(delay)
    return django_app(environ, start_response)


serve_wsgi(app, {"client_id": application.client_id, "client_secret": client_secret, "public_client_id": public_application.client_id,
                 "username": "alice", "password": "alice-password"})
