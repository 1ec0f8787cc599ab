"""A listener posing as vaultd, run as another user by LocalTrustTests: binds PATH (mode 0777),
creates RECORD.ready once it listens, and for every connection appends to RECORD how many bytes
the client sent before going quiet for a second. Runs until killed."""
import os
import socket
import sys

path, record = sys.argv[1], sys.argv[2]
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
os.chmod(path, 0o777)
listener.listen(16)
open(record + ".ready", "w").close()
while True:
    connection, _ = listener.accept()
    connection.settimeout(1)
    total = 0
    try:
        while True:
            data = connection.recv(65536)
            if not data:
                break
            total += len(data)
    except socket.timeout:
        pass
    with open(record, "a") as out:
        out.write(f"{total}\n")
    connection.close()
