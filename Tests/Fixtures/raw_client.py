"""Sends each line of stdin to vaultd's socket (argv[1]) on one connection and prints each answer
line: a program of the user speaking the protocol directly, as an attacker would."""
import socket
import sys

connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(sys.argv[1])
answers = connection.makefile("rb")
for line in sys.stdin.buffer:
    connection.sendall(line if line.endswith(b"\n") else line + b"\n")
    answer = answers.readline()
    if not answer:
        break
    sys.stdout.buffer.write(answer)
    sys.stdout.flush()
