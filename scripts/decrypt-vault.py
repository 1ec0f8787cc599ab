#!/usr/bin/env python3
"""Independent decryptor for vault files, written from docs/file-format.md alone.

Usage: decrypt-vault.py VAULT_FILE PASSPHRASE_FILE [--key-from OLD_VAULT_FILE]
Prints the items as JSON (secrets in hex) on stdout. For recovery and for checking that the
format document is complete; vault itself never runs it. Exit 1 with a message on any failure.
--key-from takes the data key from OLD_VAULT_FILE (opened with the passphrase) instead of from
VAULT_FILE's own key wrap: what someone holding an old copy and an old passphrase could try.
"""
import hashlib
import json
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"\x89VAULT\r\n"
HEADER, TRAILER = 142, 60


def fail(message):
    print(f"decrypt-vault: {message}", file=sys.stderr)
    sys.exit(1)


def gcm_open(key, nonce, ciphertext, tag, aad):
    return AESGCM(key).decrypt(nonce, ciphertext + tag, aad)


def main():
    if len(sys.argv) not in (3, 5) or (len(sys.argv) == 5 and sys.argv[3] != "--key-from"):
        fail("usage: decrypt-vault.py VAULT_FILE PASSPHRASE_FILE [--key-from OLD_VAULT_FILE]")
    data = open(sys.argv[1], "rb").read()
    passphrase = open(sys.argv[2], "rb").read()
    if passphrase.endswith(b"\n"):
        passphrase = passphrase[:-1]
    dek = unwrap(open(sys.argv[4], "rb").read() if len(sys.argv) == 5 else data, passphrase)
    items = decrypt_items(data, dek)
    print(json.dumps(items, indent=1, ensure_ascii=False))


def check_envelope(data):
    """Magic, version, checksum and lengths; returns the record count."""
    if len(data) < 10 or data[:8] != MAGIC:
        fail("not a vault file")
    (version,) = struct.unpack(">H", data[8:10])
    if version != 1:
        fail(f"unsupported version {version}")
    if len(data) < HEADER + TRAILER:
        fail("truncated")
    count, body_length = struct.unpack(">IQ", data[130:142])
    if hashlib.sha256(data[:-32]).digest() != data[-32:]:
        fail("checksum mismatch")
    if len(data) != HEADER + body_length + TRAILER:
        fail("length mismatch")
    return count


def unwrap(data, passphrase):
    """The data key from a file's key wrap."""
    check_envelope(data)
    flags, kdf, log2n, r, p = struct.unpack(">HBBII", data[10:22])
    if flags != 0 or kdf != 1 or not (14 <= log2n <= 22):
        fail("unsupported parameters")
    salt = data[22:54]
    n = 1 << log2n
    kek = hashlib.scrypt(passphrase, salt=salt, n=n, r=r, p=p, dklen=32, maxmem=128 * n * r + 128 * r * p + (1 << 20))
    try:
        dek = gcm_open(kek, data[70:82], data[82:114], data[114:130], b"vault/v1/key" + data[:70])
    except InvalidTag:
        fail("wrong passphrase")
    return dek


def decrypt_items(data, dek):
    count = check_envelope(data)
    vault_id = data[54:70]
    trailer = len(data) - TRAILER
    try:
        gcm_open(dek, data[trailer:trailer + 12], b"", data[trailer + 12:trailer + 28], b"vault/v1/file" + data[:trailer])
    except InvalidTag:
        fail("file MAC does not verify")

    items, offset = [], HEADER
    for _ in range(count):
        item_id = data[offset:offset + 16]
        offset += 16
        boxes = []
        for _ in range(2):
            (length,) = struct.unpack(">I", data[offset:offset + 4])
            nonce = data[offset + 4:offset + 16]
            ciphertext = data[offset + 16:offset + 16 + length]
            tag = data[offset + 16 + length:offset + 32 + length]
            boxes.append((nonce, ciphertext, tag))
            offset += 32 + length
        meta = gcm_open(dek, *boxes[0], b"vault/v1/meta" + vault_id + item_id)
        secret = gcm_open(dek, *boxes[1], b"vault/v1/secret" + vault_id + item_id)
        kind, created, modified = struct.unpack(">Bqq", meta[:17])
        fields, cursor = [], 17
        for _ in range(4):
            (size,) = struct.unpack(">I", meta[cursor:cursor + 4])
            fields.append(meta[cursor + 4:cursor + 4 + size].decode("utf-8"))
            cursor += 4 + size
        items.append({
            "service": fields[0], "account": fields[1], "label": fields[2], "comment": fields[3],
            "kind": ["secret", "session"][kind], "created": created, "modified": modified,
            "secret_hex": secret.hex(),
        })
    if offset != trailer:
        fail("records do not fill the records section")
    return items


main()
