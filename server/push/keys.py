"""The server's VAPID key pair (RFC 8292), derived from its secret key.

Push services take a push only when it is signed with the key pair whose
public key the browser was given when it subscribed. The pair is derived
from the server's secret key (``TURNPOST_SECRET_KEY``, else the one kept in
the database's settings: :func:`server.app.load_secret_key`), so every
process (each gunicorn worker, ``turnpost worker``) has the same one and
nothing more is stored; with ``TURNPOST_SECRET_KEY`` set, a copy of the
database alone cannot sign a push. Changing the secret key changes the pair:
the browsers' subscriptions then stop working, and their players subscribe
again from their page.

    >>> key = vapid_key("s3cret")
    >>> public_key_text("s3cret") == public_key_text("s3cret") != public_key_text("other")
    True
    >>> len(base64.urlsafe_b64decode(public_key_text("s3cret") + "="))
    65
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from functools import cache

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02

#: The order of the P-256 group: a private key is a number from 1 to this, less one.
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


@cache
def vapid_key(secret: str) -> Vapid02:
    """The VAPID signer whose P-256 key is derived from ``secret``."""
    digest = hmac.new(secret.encode(), b"turnpost.vapid", hashlib.sha512).digest()
    scalar = int.from_bytes(digest) % (P256_ORDER - 1) + 1
    return Vapid02(ec.derive_private_key(scalar, ec.SECP256R1()))


def public_key_text(secret: str) -> str:
    """The public key as browsers take it (``applicationServerKey``): unpadded base64url of
    the uncompressed point."""
    point = vapid_key(secret).public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(point).rstrip(b"=").decode()
