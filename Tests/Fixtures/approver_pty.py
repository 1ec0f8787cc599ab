"""Runs `vaultctl approve` on a pseudo-terminal and plays the person at it.
Usage: approver_pty.py VAULTCTL TRANSCRIPT ANSWER...
Types the approval secret ($APPROVAL_SECRET; choosing it, with the vault's passphrase
$VAULT_PASSPHRASE, when vaultctl asks), prints READY once the approver is registered (FAILED if
it was refused), then for each prompt types the next answer and prints ANSWERED. Everything the terminal showed is written to TRANSCRIPT. Stops the approver
when stdin closes (or after the last answer, once stdin closes)."""
import os
import pty
import select
import signal
import sys

vaultctl, transcript_path, answers = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    # The test runner blocks signals, and a blocked mask is inherited: unblock them.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    os.execv(vaultctl, [vaultctl, "approve"])

seen = b""
transcript = open(transcript_path, "wb")


def read_until(token):
    """Reads the terminal until `token` appears after what was consumed; False if it ended."""
    global seen
    while token not in seen:
        ready, _, _ = select.select([fd, sys.stdin], [], [], 60)
        if sys.stdin in ready and not sys.stdin.buffer.read1(1):
            return False
        if fd in ready:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return False
            if not data:
                return False
            seen += data
            transcript.write(data)
            transcript.flush()
        if not ready:
            return False
    seen = seen[seen.index(token) + len(token):]
    return True


def read_any(tokens):
    """Reads until one of `tokens` appears; returns it, or None if the terminal ended."""
    global seen
    while True:
        found = [(seen.index(t), t) for t in tokens if t in seen]
        if found:
            token = min(found)[1]
            seen = seen[seen.index(token) + len(token):]
            return token
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            return None
        try:
            data = os.read(fd, 4096)
        except OSError:
            return None
        if not data:
            return None
        seen += data
        transcript.write(data)
        transcript.flush()


secret = os.environ.get("APPROVAL_SECRET", "").encode()
passphrase = os.environ.get("VAULT_PASSPHRASE", "").encode()
ok = False
while True:
    token = read_any([b"Approval secret: ", b"Repeat to confirm: ", b"passphrase (to set the approval secret): ",
                      b"approving requests"])
    if token in (b"Approval secret: ", b"Repeat to confirm: "):
        os.write(fd, secret + b"\n")
    elif token == b"passphrase (to set the approval secret): ":
        os.write(fd, passphrase + b"\n")
    else:
        ok = token == b"approving requests"
        break
print("READY" if ok else "FAILED", flush=True)
for answer in answers:
    if not read_until(b"[o]nce"):
        break
    os.write(fd, answer.encode() + b"\n")
    print("ANSWERED " + answer, flush=True)
# Keep the approver until the test closes stdin, recording what it shows.
read_until(b"\x00never")
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
