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


KINDS = ["secret", "session", "aws", "access"]
MAX_ENTRY = 256 * 1024


def check_envelope(data):
    """Magic, version, checksum and lengths; returns (version, record count, snapshot size)."""
    if len(data) < 10 or data[:8] != MAGIC:
        fail("not a vault file")
    (version,) = struct.unpack(">H", data[8:10])
    if version not in (1, 2):
        fail(f"unsupported version {version}")
    if len(data) < HEADER + TRAILER:
        fail("truncated")
    count, body_length = struct.unpack(">IQ", data[130:142])
    size = HEADER + body_length + TRAILER
    if len(data) < size:
        fail("truncated")
    if hashlib.sha256(data[:size - 32]).digest() != data[size - 32:size]:
        fail("checksum mismatch")
    if version == 1 and len(data) != size:
        fail("length mismatch")
    return version, count, size


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


def read_record(data, offset):
    """item-id, metadata box, secret box; returns (item_id, boxes, next offset)."""
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
    return item_id, boxes, offset


def read_string(meta, cursor):
    (size,) = struct.unpack(">I", meta[cursor:cursor + 4])
    return meta[cursor + 4:cursor + 4 + size].decode("utf-8"), cursor + 4 + size


def open_record(dek, version, vault_id, item_id, boxes):
    try:
        meta = gcm_open(dek, *boxes[0], f"vault/v{version}/meta".encode() + vault_id + item_id)
        secret = gcm_open(dek, *boxes[1], b"vault/v1/secret" + vault_id + item_id)
    except InvalidTag:
        fail("an item does not authenticate")
    kind, created, modified = struct.unpack(">Bqq", meta[:17])
    fields, cursor = [], 17
    for _ in range(4):
        field, cursor = read_string(meta, cursor)
        fields.append(field)
    attributes, content_type = {}, "text/plain"
    if version >= 2:
        (count,) = struct.unpack(">I", meta[cursor:cursor + 4])
        cursor += 4
        for _ in range(count):
            name, cursor = read_string(meta, cursor)
            value, cursor = read_string(meta, cursor)
            attributes[name] = value
        content_type, cursor = read_string(meta, cursor)
    if cursor != len(meta):
        fail("unexpected bytes after an item's metadata")
    return {
        "service": fields[0], "account": fields[1], "label": fields[2], "comment": fields[3],
        "kind": KINDS[kind], "created": created, "modified": modified,
        "attributes": attributes, "content_type": content_type,
        "secret_hex": secret.hex(),
    }


def decrypt_items(data, dek):
    version, count, size = check_envelope(data)
    vault_id = data[54:70]
    trailer = size - TRAILER
    try:
        gcm_open(dek, data[trailer:trailer + 12], b"", data[trailer + 12:trailer + 28], f"vault/v{version}/file".encode() + data[:trailer])
    except InvalidTag:
        fail("file MAC does not verify")

    items, offset = {}, HEADER
    for _ in range(count):
        item_id, boxes, offset = read_record(data, offset)
        items[item_id] = open_record(dek, version, vault_id, item_id, boxes)
    if offset != trailer:
        fail("records do not fill the records section")

    # The journal: entries chained from the snapshot MAC's tag; a torn last entry is ignored.
    previous, offset = data[trailer + 12:trailer + 28], size
    while offset < len(data):
        left = len(data) - offset
        if left < 8:
            break
        length, check = struct.unpack(">II", data[offset:offset + 8])
        if check != length ^ 0xFFFFFFFF and not any(data[offset:]):
            break  # zeros to the end: an append torn by a power loss (file-format.md, reading step 8)
        if check != length ^ 0xFFFFFFFF or length > MAX_ENTRY:
            fail("a journal entry is damaged")
        if 8 + length + 60 > left:
            break
        end = offset + 8 + length
        nonce, tag, checksum = data[end:end + 12], data[end + 12:end + 28], data[end + 28:end + 60]
        if hashlib.sha256(data[offset:end + 28]).digest() != checksum:
            fail("a journal entry is damaged")
        try:
            gcm_open(dek, nonce, b"", tag, b"vault/v2/entry" + previous + data[offset:end])
        except InvalidTag:
            fail("a journal entry does not verify")
        body = data[offset + 8:end]
        if body[:1] == b"\x01":
            item_id, boxes, consumed = read_record(body, 1)
            if consumed != len(body):
                fail("a journal entry is damaged")
            item = open_record(dek, 2, vault_id, item_id, boxes)
            if any(other_id != item_id and (other["service"], other["account"]) == (item["service"], item["account"])
                   for other_id, other in items.items()):
                fail("a journal entry gives two items one name")
            items[item_id] = item
        elif body[:1] == b"\x02" and len(body) == 17 and body[1:] in items:
            del items[body[1:]]
        else:
            fail("a journal entry is damaged")
        previous, offset = tag, end + 60
    return list(items.values())


if __name__ == "__main__":
    main()
