"""A local Web Push service for the tests, and the browser side of a subscription.

Browsers' push services are outside this machine, so the tests stand in for
both ends: :class:`PushService` is an HTTPS server (a self-signed certificate
for 127.0.0.1, trusted by the worker through ``SSL_CERT_FILE``) that records
each push and answers the next queued status; :class:`PushBrowser` holds a
subscription's private key and auth secret, as a browser does, and decrypts
what the service received (RFC 8291 with ``http_ece``) and checks its VAPID
signature (RFC 8292) against the server's public key.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import os
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from py_vapid.jwt import decode

#: What the tests' operator allows push endpoints to reach: the local push service.
LOOPBACK = "127.0.0.1/32"


def text(data: bytes) -> str:
    """Unpadded base64url, as subscriptions and VAPID keys are written."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for the loopback addresses 127.0.0.1 and ::1 and its key, as PEM files in
    ``folder``."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.IPAddress(ipaddress.ip_address(loopback))
                    for loopback in ("127.0.0.1", "::1")
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "push-service.pem", folder / "push-service.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    os.chmod(key_path, 0o600)
    return cert_path, key_path


class PushService:
    """A local HTTPS push service: records each push, answers the next queued status (201)."""

    def __init__(self, folder: Path) -> None:
        self.requests: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        self.received = threading.Condition()
        self.cert_path, key_path = self_signed(folder)
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status = service.statuses.pop(0) if service.statuses else 201
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()
                with service.received:
                    service.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": body}
                    )
                    service.received.notify_all()

            def log_message(self, *args: Any) -> None:
                return

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert_path, key_path)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.origin = f"https://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 30) -> list[dict[str, Any]]:
        """The first ``count`` pushes received, waiting for them."""
        with self.received:
            arrived = self.received.wait_for(lambda: len(self.requests) >= count, timeout)
        assert arrived, f"the push service received {len(self.requests)} pushes, not {count}"
        return self.requests[:count]

    def stop(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


class PushBrowser:
    """The browser side of one subscription: its keys, and what it makes of a push."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives for this subscription."""
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": text(point), "auth": text(self.auth)},
        }

    def read(self, push: dict[str, Any]) -> dict[str, Any]:
        """The message of a received push, decrypted with this subscription's keys."""
        assert push["headers"]["Content-Encoding"] == "aes128gcm"
        plain = http_ece.decrypt(
            push["body"], private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def vapid_claims(push: dict[str, Any], server_key: str) -> dict[str, Any]:
    """The claims of a push's VAPID JWT once its signature checks with ``server_key`` (the
    public key the page gave the browser); an error if it does not."""
    scheme, _, fields = push["headers"]["Authorization"].partition(" ")
    assert scheme == "vapid", scheme
    parts = dict(field.split("=", 1) for field in fields.split(","))
    assert parts["k"] == server_key, "the push is signed with another key than the page gave"
    return decode(parts["t"], server_key)
