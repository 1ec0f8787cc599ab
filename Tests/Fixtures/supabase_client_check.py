#!/usr/bin/env python3
"""Drives the Supabase Auth fixture with the real Python client (supabase_auth, from PyPI), so the
imitation stays what the real client accepts: sign-up, sign-in, a wrong password, refresh,
password reset and sign-out. Prints one line per step, "ok STEP" or "failed STEP: WHY"; exits 1
when any step failed.

Usage: supabase_client_check.py AUTH_URL ANON_KEY   (AUTH_URL ends in /auth/v1)
"""
import sys

from supabase_auth import SyncGoTrueClient
from supabase_auth.errors import AuthApiError

url, anon_key = sys.argv[1:3]
client = SyncGoTrueClient(url=url, headers={"apikey": anon_key, "Authorization": "Bearer " + anon_key},
                          auto_refresh_token=False, persist_session=False)
failed = False


def step(name, run):
    global failed
    try:
        run()
        print("ok", name)
    except Exception as error:  # noqa: BLE001: every failure is reported, none is fatal here
        failed = True
        print("failed %s: %s: %s" % (name, type(error).__name__, str(error).splitlines()[0] if str(error) else ""))


def sign_up():
    answer = client.sign_up({"email": "client-check@example.com", "password": "client-check-password"})
    assert answer.user is not None and answer.user.email == "client-check@example.com"
    assert answer.session is not None and answer.session.access_token


def sign_in():
    answer = client.sign_in_with_password({"email": "alice@example.com", "password": "alice-password"})
    assert answer.session.refresh_token and answer.user.id == "user-alice"
    state["session"] = answer.session


def wrong_password():
    try:
        client.sign_in_with_password({"email": "alice@example.com", "password": "wrong"})
    except AuthApiError as error:
        assert error.code == "invalid_credentials", error.code
        return
    raise AssertionError("a wrong password signed in")


def refresh():
    answer = client.refresh_session(state["session"].refresh_token)
    assert answer.session.refresh_token != state["session"].refresh_token
    state["session"] = answer.session


def sign_out():
    client.set_session(state["session"].access_token, state["session"].refresh_token)
    client.sign_out()


state = {}
step("sign-up", sign_up)
step("sign-in", sign_in)
step("wrong password", wrong_password)
step("refresh", refresh)
step("password reset", lambda: client.reset_password_for_email("alice@example.com"))
step("sign-out", sign_out)
sys.exit(1 if failed else 0)
