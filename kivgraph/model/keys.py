"""Stable keys: the durable name of a symbol, derived from its canonical identity only.

A key is BLAKE2b-256 over a length-prefixed canonical string, in base32 without padding (52
characters). Line numbers never enter it, so moving unrelated code never changes a key.
"""

import base64
import hashlib

KEY_NAMESPACE = "kivgraph-stable-key"
KEY_VERSION = 1
_FIELDS = ("language", "repository", "package", "module", "qualified_name", "kind", "discriminator")
_PREFIX = f"{KEY_NAMESPACE}\x00version={KEY_VERSION}\x00"


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
    values = (language, repository, package, module, qualified_name, kind, discriminator)
    return _PREFIX + "\x00".join(
        f"{name}={len(value) if value.isascii() else len(value.encode('utf-8'))}:{value}"
        for name, value in zip(_FIELDS, values, strict=True)
    )


def stable_key(canonical: str) -> str:
    digest = hashlib.blake2b(canonical.encode("utf-8"), digest_size=32).digest()
    return base64.b32encode(digest).decode("ascii").rstrip("=")


def is_stable_key(text: str) -> bool:
    return len(text) == 52 and all(c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" for c in text)
