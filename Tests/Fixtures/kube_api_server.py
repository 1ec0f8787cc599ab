"""A stand-in Kubernetes API server for kubectl: HTTPS on 127.0.0.1 with a self-signed
certificate made here (kubectl runs exec plugins only for https servers). Every request's
Authorization header is appended to STATE_DIR/authorization; GET /api answers an APIVersions
object. Started by PythonFixture (server.json, stops when stdin closes)."""
import datetime
import ipaddress
import os
import ssl
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from fixture_server import JSONHandler, serve

state = sys.argv[1]
key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
now = datetime.datetime.now(datetime.timezone.utc)
certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
               .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(hours=1))
               .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
               .sign(key, hashes.SHA256()))
with open(os.path.join(state, "cert.pem"), "wb") as out:
    out.write(certificate.public_bytes(serialization.Encoding.PEM))
with open(os.path.join(state, "key.pem"), "wb") as out:
    out.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(os.path.join(state, "cert.pem"), os.path.join(state, "key.pem"))


class Handler(JSONHandler):
    def setup(self):
        self.request = context.wrap_socket(self.request, server_side=True)
        super().setup()

    def do_GET(self):
        with open(os.path.join(state, "authorization"), "a") as out:
            out.write((self.headers.get("Authorization") or "") + "\n")
        if self.headers.get("Authorization", "").startswith("Bearer "):
            self.reply(200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})
        else:
            self.reply(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Unauthorized", "code": 401})


serve(Handler, {})
