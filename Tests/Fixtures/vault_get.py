"""Reads an item straight over vaultd's socket, as a script run by python3: the access tests
match such a caller by its script's path. Usage: vault_get.py SOCKET SERVICE ACCOUNT [LIBRARY].
LIBRARY is loaded first, as a program with a native module would. A SERVICE kv://REMOTE reads
field 'password' of the remote secret at ACCOUNT. Prints the secret, or 'error CODE'."""
import ctypes
import json
import socket
import sys

if len(sys.argv) > 4:
    ctypes.CDLL(sys.argv[4])

connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(sys.argv[1])
if sys.argv[2].startswith("kv://"):
    request = {"op": "kv_get", "remote": sys.argv[2][len("kv://"):], "path": sys.argv[3], "field": "password"}
else:
    request = {"op": "get", "service": sys.argv[2], "account": sys.argv[3]}
connection.sendall(json.dumps(dict(request, id=1)).encode() + b"\n")
answer = b""
while not answer.endswith(b"\n"):
    chunk = connection.recv(65536)
    if not chunk:
        break
    answer += chunk
response = json.loads(answer)
if response.get("ok"):
    print(response["result"]["item"]["secret"])
else:
    print("error " + response["error"]["code"])
