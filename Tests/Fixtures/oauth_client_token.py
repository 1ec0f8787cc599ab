#!/usr/bin/env python3
"""Signs in to a token endpoint with a real OAuth client library and prints the token it keeps,
as JSON, the way an application saves it (what `vaultctl session import` is given).

Usage: oauth_client_token.py requests-oauthlib|authlib TOKEN_ENDPOINT CLIENT_ID USERNAME
The password is read from stdin. Loopback HTTP only (the test server).
"""
import json
import os
import sys

os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"  # the test server is plain HTTP on 127.0.0.1

library, endpoint, client_id, username = sys.argv[1:5]
password = sys.stdin.readline().rstrip("\n")
if library == "requests-oauthlib":
    from oauthlib.oauth2 import LegacyApplicationClient
    from requests_oauthlib import OAuth2Session

    session = OAuth2Session(client=LegacyApplicationClient(client_id=client_id))
    token = session.fetch_token(token_url=endpoint, username=username, password=password, client_id=client_id, include_client_id=True)
elif library == "authlib":
    from authlib.integrations.requests_client import OAuth2Session

    session = OAuth2Session(client_id, token_endpoint_auth_method="none")
    token = session.fetch_token(endpoint, grant_type="password", username=username, password=password)
else:
    sys.exit("unknown library " + library)
print(json.dumps(dict(token)))
