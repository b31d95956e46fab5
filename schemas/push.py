"""The Web Push subscription a browser posts (``PushSubscription.toJSON()``).

>>> import base64
>>> from cryptography.hazmat.primitives.asymmetric import ec
>>> from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
>>> point = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
...     Encoding.X962, PublicFormat.UncompressedPoint)
>>> text = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
>>> body = {"endpoint": "https://push.example.org/abc", "expirationTime": None,
...     "keys": {"p256dh": text(point), "auth": text(b"0123456789abcdef")}}
>>> PushSubscriptionSchema().load(body)["endpoint"]
'https://push.example.org/abc'
>>> sorted(PushSubscriptionSchema().validate({**body, "keys": {"p256dh": text(b"x" * 65),
...     "auth": text(b"short")}})["keys"])
['auth', 'p256dh']
"""

from __future__ import annotations

import base64

from cryptography.hazmat.primitives.asymmetric import ec
from marshmallow import ValidationError, fields, validate

from schemas.api import printable
from schemas.base import StrictSchema

#: The length of a subscription's authentication secret (RFC 8291).
AUTH_BYTES = 16


def unpadded(text: str) -> bytes:
    """The bytes of unpadded base64url ``text``, as subscriptions write their keys
    (``ValueError`` if it is not base64url)."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def p256_point(text: str) -> None:
    """Refuse what is not a P-256 public key (an uncompressed point on the curve)."""
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unpadded(text))
    except ValueError:
        raise ValidationError("Not a P-256 public key.") from None


def auth_secret(text: str) -> None:
    """Refuse an authentication secret that is not 16 bytes."""
    try:
        secret = unpadded(text)
    except ValueError:
        raise ValidationError("Not base64url.") from None
    if len(secret) != AUTH_BYTES:
        raise ValidationError(f"An authentication secret is {AUTH_BYTES} bytes.")


class PushKeysSchema(StrictSchema):
    """The keys the browser encrypts with."""

    p256dh = fields.String(required=True, validate=[validate.Length(max=100), p256_point])
    auth = fields.String(required=True, validate=[validate.Length(max=40), auth_secret])


class PushSubscriptionSchema(StrictSchema):
    """A browser's push subscription: where to post, and the keys to encrypt for it."""

    endpoint = fields.String(
        required=True,
        validate=printable,
        metadata={"description": "An https:// URL of the browser's push service."},
    )
    expiration_time = fields.Float(data_key="expirationTime", allow_none=True, load_default=None)
    keys = fields.Nested(PushKeysSchema, required=True)
