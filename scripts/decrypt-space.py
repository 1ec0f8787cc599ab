#!/usr/bin/env python3
"""Independent decryptor for a space's entries on the engine, written from docs/file-format.md
("Spaces on the engine") alone.

Usage: decrypt-space.py ENTRIES_JSON DEVICE_KEY_FILE
ENTRIES_JSON: a JSON object of the space's entries as the engine holds them, each path under the
space's root (`space`, `index`, `devices/ID`, `keys/ID`, `handover/ID`, `items/NAME`) mapped to
its KV v2 fields.
DEVICE_KEY_FILE: a device's X25519 private key, 32 bytes in hex.
Prints {"generations": [...], "handover": ..., "index": {...}, "items": [...], "refused": [...]}
as JSON: every key generation the device opens, the wrapping token handed to it (if still there),
the index and each item record those keys open (secrets in
base64, as stored), and what did not open. For recovery and for checking that the format
document is complete; vault itself never runs it. Exit 1 with a message on bad input.
"""
import base64
import hashlib
import hmac
import json
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

FORMAT = "vault-space-1"


def fail(message):
    print(f"decrypt-space: {message}", file=sys.stderr)
    sys.exit(1)


def hkdf(key, salt, info, length=32):
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(key)


def device_id(public_key):
    return hashlib.sha256(b"vault device id v1\0" + public_key).digest()[:16].hex()


def open_grant(sealed, device, sender_public, context):
    """DeviceSeal.open with a sender: ephemeral(32) | nonce(12) | ciphertext | tag(16)."""
    ephemeral = sealed[:32]
    recipient = device.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shared = device.exchange(X25519PublicKey.from_public_bytes(ephemeral))
    shared += device.exchange(X25519PublicKey.from_public_bytes(sender_public))
    key = hkdf(shared, ephemeral + recipient + sender_public, b"vault device seal v1\0" + context)
    return AESGCM(key).decrypt(sealed[32:44], sealed[44:], context)


def open_entry(fields, kind, name, space_id, keys):
    if fields.get("format") != FORMAT:
        raise ValueError(f"{name}: not {FORMAT}")
    generation = int(fields["generation"])
    if generation not in keys:
        raise ValueError(f"{name}: no key of generation {generation}")
    sealing = hkdf(keys[generation], space_id.encode(), b"vault space records v1")
    text, part = fields["sealed"], 2
    while f"sealed.{part}" in fields:
        text += fields[f"sealed.{part}"]
        part += 1
    sealed = base64.b64decode(text, validate=True)
    aad = f"vault space {kind} v1".encode() + b"\0" + space_id.encode() + b"\0" + name.encode() + b"\0" + str(generation).encode()
    return generation, json.loads(AESGCM(sealing).decrypt(sealed[:12], sealed[12:], aad))


def main():
    if len(sys.argv) != 3:
        fail("usage: decrypt-space.py ENTRIES_JSON DEVICE_KEY_FILE")
    with open(sys.argv[1]) as file:
        entries = json.load(file)
    with open(sys.argv[2]) as file:
        device = X25519PrivateKey.from_private_bytes(bytes.fromhex(file.read().strip()))
    me = device_id(device.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
    space = entries.get("space") or fail("no 'space' entry")
    if space.get("format") != FORMAT:
        fail(f"the space entry is not {FORMAT}")
    space_id = space["id"]
    devices = {path[len("devices/"):]: fields for path, fields in entries.items() if path.startswith("devices/")}
    admitted = {}
    for ident, fields in devices.items():
        public = base64.b64decode(fields["public_key"])
        if device_id(public) == ident and fields.get("state") == "admitted":
            admitted[ident] = public
    refused, keys = [], {}
    for field, value in entries.get(f"keys/{me}", {}).items():
        if not field.startswith("g") or field.endswith("_by"):
            continue
        generation = int(field[1:])
        sender = admitted.get(entries[f"keys/{me}"].get(field + "_by", ""))
        context = b"vault space key v1\0" + space_id.encode() + b"\0" + me.encode() + b"\0" + str(generation).encode()
        try:
            if sender is None:
                raise InvalidTag()
            keys[generation] = open_grant(base64.b64decode(value), device, sender, context)
        except (InvalidTag, ValueError):
            refused.append(f"keys/{me}: generation {generation}")
    result = {"generations": sorted(keys), "handover": None, "index": None, "items": [], "refused": refused}
    handover = entries.get(f"handover/{me}")
    if handover is not None:
        sender = admitted.get(handover.get("by", ""))
        context = b"vault space handover v1\0" + space_id.encode() + b"\0" + me.encode()
        try:
            if sender is None:
                raise InvalidTag()
            result["handover"] = {"wrapping_token": open_grant(base64.b64decode(handover["token"]), device, sender, context).decode(),
                                  "kind": handover.get("kind")}
        except (InvalidTag, ValueError, KeyError):
            refused.append(f"handover/{me}: does not open")
    if "index" in entries:
        try:
            result["index"] = open_entry(entries["index"], "index", "index", space_id, keys)[1]
        except (InvalidTag, ValueError, KeyError) as error:
            refused.append(f"index: {error or 'does not open'}")
    for path, fields in sorted(entries.items()):
        if not path.startswith("items/"):
            continue
        name = path[len("items/"):]
        try:
            generation, record = open_entry(fields, "item", name, space_id, keys)
            naming = hkdf(keys[generation], space_id.encode(), b"vault space names v1")
            expected = hmac.new(naming, record["service"].encode() + b"\0" + record["account"].encode() + b"\0", hashlib.sha256).hexdigest()
            if expected != name:
                raise ValueError(f"{path}: the record of another item")
            result["items"].append(dict(record, entry=name, generation=generation))
        except InvalidTag:
            refused.append(f"{path}: does not open")
        except (ValueError, KeyError) as error:
            refused.append(str(error))
    json.dump(result, sys.stdout, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
