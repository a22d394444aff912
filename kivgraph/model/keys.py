"""Stable keys: the durable name of a symbol, derived from its canonical identity only.

A key is BLAKE2b-256 over a length-prefixed canonical string, in base32 without padding (52
characters). Line numbers never enter it, so moving unrelated code never changes a key.
"""

import base64
import hashlib

KEY_NAMESPACE = "kivgraph-stable-key"
KEY_VERSION = 1


def canonical_identity(
    language: str,
    repository: str,
    package: str,
    module: str,
    qualified_name: str,
    kind: str,
    discriminator: str,
) -> str:
    """The exact string a key hashes; fields are length-prefixed so no two identities collide."""
    parts = [f"{KEY_NAMESPACE}\x00version={KEY_VERSION}"]
    for name, value in (
        ("language", language),
        ("repository", repository),
        ("package", package),
        ("module", module),
        ("qualified_name", qualified_name),
        ("kind", kind),
        ("discriminator", discriminator),
    ):
        parts.append(f"{name}={len(value.encode('utf-8'))}:{value}")
    return "\x00".join(parts)


def stable_key(canonical: str) -> str:
    digest = hashlib.blake2b(canonical.encode("utf-8"), digest_size=32).digest()
    return base64.b32encode(digest).decode("ascii").rstrip("=")


def is_stable_key(text: str) -> bool:
    return len(text) == 52 and all(c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" for c in text)
