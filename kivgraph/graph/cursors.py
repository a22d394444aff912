"""Opaque pagination cursors (format version 2): the byte layout, its base64url text and its checks.

No query runs here; any client string decodes to a row offset or a cursor error, never another exception.
"""

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping

from kivgraph.errors import CursorInvalidError, CursorSnapshotExpiredError

FORMAT_VERSION = 2
MAX_SNAPSHOT_ID = 2**63 - 1
MAX_OFFSET = 2**31 - 1

QUERY_HASH_BYTES = 8
SORTING_BYTES = 4
CHECKSUM_BYTES = 8
TAIL_BYTES = QUERY_HASH_BYTES + SORTING_BYTES + CHECKSUM_BYTES
MIN_BODY_BYTES = 1 + 1 + 1 + TAIL_BYTES
# Version byte, two 10-byte varints (the most a 64-bit LEB128 value takes), the fixed tail.
MAX_BODY_BYTES = 1 + 10 + 10 + TAIL_BYTES
# Checked before decoding, so a huge string costs nothing; 64 characters hold 48 bytes.
MAX_TOKEN_CHARS = 64
MAX_VARINT_BYTES = 10

BASE64URL_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

RETRY_HINT = "; pass next_cursor exactly as the previous page returned it, or omit cursor to start from the first page"
EXPIRED_MESSAGE = "cursor belongs to an older snapshot; start the query again from the first page"
MISMATCH_MESSAGE = "cursor does not match the active query; repeat the original arguments unchanged and add cursor"


def query_hash(identity: Mapping[str, object]) -> bytes:
    """SHA-256 of the canonical JSON of the query identity.

    Canonical means sort_keys=True, separators=(',', ':'), ensure_ascii=False, so key order never matters.
    """
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # A client can send a lone surrogate inside a JSON string; it must hash, not raise.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def encode_cursor(snapshot_id: int, offset: int, identity: Mapping[str, object], sorting: str) -> str:
    """The base64url text (no padding) of a version-2 cursor continuing at row `offset`."""
    if not 0 <= snapshot_id <= MAX_SNAPSHOT_ID:
        raise ValueError(f"snapshot_id must be between 0 and {MAX_SNAPSHOT_ID}, got {snapshot_id}")
    if not 0 <= offset <= MAX_OFFSET:
        raise ValueError(f"offset must be between 0 and {MAX_OFFSET}, got {offset}")
    body = bytearray([FORMAT_VERSION])
    body += encode_uvarint(snapshot_id)
    body += encode_uvarint(offset)
    body += query_hash(identity)[:QUERY_HASH_BYTES]
    body += sorting_prefix(sorting)
    body += checksum(bytes(body))
    return base64.urlsafe_b64encode(bytes(body)).rstrip(b"=").decode("ascii")


def decode_cursor(token: str, snapshot_id: int, identity: Mapping[str, object], sorting: str) -> int:
    """The row offset the cursor continues at; raises CursorInvalidError / CursorSnapshotExpiredError."""
    body = decode_body(token)
    if body[0] != FORMAT_VERSION:
        raise invalid("cursor format version is unsupported")
    decoded_snapshot = read_uvarint(body, 1)
    if decoded_snapshot is None or decoded_snapshot[0] > MAX_SNAPSHOT_ID:
        raise invalid("cursor snapshot id is malformed")
    cursor_snapshot, position = decoded_snapshot
    decoded_offset = read_uvarint(body, position)
    if decoded_offset is None:
        raise invalid("cursor offset is malformed")
    offset, position = decoded_offset
    if len(body) - position != TAIL_BYTES:
        raise invalid("cursor payload length is invalid")
    if offset > MAX_OFFSET:
        raise invalid("cursor offset is out of range")
    signed = body[:-CHECKSUM_BYTES]
    if checksum(signed) != body[-CHECKSUM_BYTES:]:
        raise invalid("cursor checksum does not match")
    if cursor_snapshot != snapshot_id:
        raise CursorSnapshotExpiredError(EXPIRED_MESSAGE)
    same_query = body[position : position + QUERY_HASH_BYTES] == query_hash(identity)[:QUERY_HASH_BYTES]
    same_sorting = body[position + QUERY_HASH_BYTES : -CHECKSUM_BYTES] == sorting_prefix(sorting)
    if not (same_query and same_sorting):
        raise CursorInvalidError(MISMATCH_MESSAGE)
    return offset


def decode_body(token: str) -> bytes:
    """The cursor's bytes, checked only for size and for being the one canonical base64url spelling."""
    if not token:
        raise invalid("cursor is empty")
    if len(token) > MAX_TOKEN_CHARS:
        raise invalid("cursor payload is too long")
    # A length of 1 mod 4 cannot come from any byte string.
    if not BASE64URL_ALPHABET.issuperset(token) or len(token) % 4 == 1:
        raise invalid("cursor is not valid base64url")
    try:
        body = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError) as err:
        raise invalid("cursor is not valid base64url") from err
    # Unused low bits in the last character would give one body several spellings.
    if base64.urlsafe_b64encode(body).rstrip(b"=").decode("ascii") != token:
        raise invalid("cursor is not valid base64url")
    if len(body) > MAX_BODY_BYTES:
        raise invalid("cursor payload is too long")
    if len(body) < MIN_BODY_BYTES:
        raise invalid("cursor payload is truncated")
    return body


def encode_uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read_uvarint(data: bytes, position: int) -> tuple[int, int] | None:
    """(value, position after it), or None when the varint is cut off, over 64 bits, or not minimal."""
    value = 0
    for index in range(MAX_VARINT_BYTES):
        if position + index >= len(data):
            return None
        byte = data[position + index]
        value |= (byte & 0x7F) << (7 * index)
        if byte < 0x80:
            if index > 0 and byte == 0:
                return None
            if value >= 2**64:
                return None
            return value, position + index + 1
    return None


def sorting_prefix(sorting: str) -> bytes:
    return hashlib.sha256(sorting.encode("utf-8", "surrogatepass")).digest()[:SORTING_BYTES]


def checksum(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()[:CHECKSUM_BYTES]


def invalid(reason: str) -> CursorInvalidError:
    return CursorInvalidError(reason + RETRY_HINT)
