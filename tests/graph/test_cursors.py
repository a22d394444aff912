import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kivgraph.errors import CursorInvalidError, CursorSnapshotExpiredError
from kivgraph.graph.cursors import decode_cursor, encode_cursor, query_hash

IDENTITY = {"tool": "find_symbol", "name": "Handler", "mode": "exact", "repo": "demo"}
SORTING = "stable-key-v1"
SNAPSHOT = 7
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def b64(body: bytes) -> str:
    return base64.urlsafe_b64encode(body).rstrip(b"=").decode("ascii")


def signed(content: bytes) -> bytes:
    """`content` followed by a valid checksum, so only the check under test can fail."""
    return content + hashlib.sha256(content).digest()[:8]


def tail(identity: dict[str, object] = IDENTITY, sorting: str = SORTING) -> bytes:
    return query_hash(identity)[:8] + hashlib.sha256(sorting.encode()).digest()[:4]


def crafted(snapshot: bytes, offset: bytes, version: int = 2) -> str:
    return b64(signed(bytes([version]) + snapshot + offset + tail()))


def decode(token: str) -> int:
    return decode_cursor(token, SNAPSHOT, IDENTITY, SORTING)


@pytest.mark.parametrize("snapshot_id", [0, 1, 127, 128, 300, 2**32, 2**63 - 1])
@pytest.mark.parametrize("offset", [0, 1, 50, 127, 128, 16_384, 2**31 - 1])
def test_a_cursor_decodes_to_the_offset_it_was_encoded_with(snapshot_id: int, offset: int):
    token = encode_cursor(snapshot_id, offset, IDENTITY, SORTING)
    assert decode_cursor(token, snapshot_id, IDENTITY, SORTING) == offset


def test_a_cursor_for_small_values_is_short_unpadded_base64url():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    assert len(token) <= 40
    assert "=" not in token
    assert set(token) <= set(ALPHABET)


def test_encoding_is_deterministic_and_ignores_identity_key_order():
    reordered = dict(reversed(list(IDENTITY.items())))
    assert encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING) == encode_cursor(SNAPSHOT, 50, reordered, SORTING)


@pytest.mark.parametrize(("snapshot_id", "offset"), [(-1, 0), (2**63, 0), (0, -1), (0, 2**31)])
def test_encoding_refuses_values_outside_the_format(snapshot_id: int, offset: int):
    with pytest.raises(ValueError):
        encode_cursor(snapshot_id, offset, IDENTITY, SORTING)


def test_a_cursor_from_another_snapshot_has_expired():
    token = encode_cursor(SNAPSHOT - 1, 50, IDENTITY, SORTING)
    with pytest.raises(CursorSnapshotExpiredError, match="^cursor belongs to an older snapshot; start the query"):
        decode(token)


def test_the_snapshot_is_checked_before_the_query_identity():
    token = encode_cursor(SNAPSHOT - 1, 50, {"tool": "find_references"}, "references-v1")
    with pytest.raises(CursorSnapshotExpiredError):
        decode(token)


@pytest.mark.parametrize(
    "changed",
    [
        {**IDENTITY, "name": "handler"},
        {**IDENTITY, "mode": "prefix"},
        {**IDENTITY, "tool": "get_file_outline"},
        {**IDENTITY, "kind": "function"},
        {key: value for key, value in IDENTITY.items() if key != "repo"},
    ],
)
def test_a_cursor_does_not_continue_a_query_with_a_changed_argument(changed: dict[str, object]):
    token = encode_cursor(SNAPSHOT, 50, changed, SORTING)
    with pytest.raises(CursorInvalidError, match="^cursor does not match the active query; repeat the original"):
        decode(token)


def test_identity_key_order_does_not_matter_when_decoding():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    reordered = dict(sorted(IDENTITY.items(), reverse=True))
    assert list(reordered) != list(IDENTITY)
    assert decode_cursor(token, SNAPSHOT, reordered, SORTING) == 50


def test_a_cursor_does_not_continue_a_query_with_another_sorting():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    with pytest.raises(CursorInvalidError, match="^cursor does not match the active query"):
        decode_cursor(token, SNAPSHOT, IDENTITY, "references-v1")


def test_query_hash_is_sha256_of_canonical_json_and_accepts_any_string():
    assert query_hash({"b": 1, "a": "é"}) == hashlib.sha256('{"a":"é","b":1}'.encode()).digest()
    assert len(query_hash({"name": "\ud800"})) == 32


def test_every_single_character_substitution_is_rejected():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    substitutions = 0
    for index, original in enumerate(token):
        for replacement in ALPHABET.replace(original, "") + "=+/.é":
            damaged = token[:index] + replacement + token[index + 1 :]
            with pytest.raises(CursorInvalidError):
                decode(damaged)
            substitutions += 1
    assert substitutions == len(token) * 68


def test_every_truncation_is_rejected():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    for length in range(len(token)):
        with pytest.raises(CursorInvalidError):
            decode(token[:length])


def test_an_empty_cursor_is_rejected_by_name():
    with pytest.raises(CursorInvalidError, match="^cursor is empty"):
        decode("")


def test_a_cursor_cut_below_the_minimum_size_is_truncated():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    with pytest.raises(CursorInvalidError, match="^cursor payload is truncated"):
        decode(b64(base64.urlsafe_b64decode(token + "=")[:22]))


def test_trailing_bytes_make_the_payload_length_invalid():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    body = base64.urlsafe_b64decode(token + "=")
    with pytest.raises(CursorInvalidError, match="^cursor payload length is invalid"):
        decode(b64(body + b"\x00"))
    with pytest.raises(CursorInvalidError, match="^cursor payload length is invalid"):
        decode(b64(signed(body[:-8] + b"\x00")))


def test_an_oversized_cursor_is_too_long():
    with pytest.raises(CursorInvalidError, match="^cursor payload is too long"):
        decode("A" * 65)
    with pytest.raises(CursorInvalidError, match="^cursor payload is too long"):
        decode(b64(signed(b"\x02" + bytes(34))))


@pytest.mark.parametrize("token", ["AgE=", "Ag E", "Ag+/", "Agé", "A", "AB"])
def test_text_outside_unpadded_base64url_is_rejected(token: str):
    with pytest.raises(CursorInvalidError, match="^cursor is not valid base64url"):
        decode(token)


def test_unused_low_bits_in_the_last_character_are_rejected():
    token = encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING)
    assert len(token) % 4 == 3
    last = ALPHABET.index(token[-1])
    with pytest.raises(CursorInvalidError, match="^cursor is not valid base64url"):
        decode(token[:-1] + ALPHABET[last | 1])


def test_a_version_1_json_cursor_is_rejected():
    with pytest.raises(CursorInvalidError, match="^cursor (format version is unsupported|payload is truncated)"):
        decode(b64(b'{"offset":5}'))


def test_a_json_cursor_long_enough_to_parse_fails_on_the_version():
    payload = b'{"offset":5,"snapshot":7,"tool":"x"}'
    assert 23 <= len(payload) <= 41
    with pytest.raises(CursorInvalidError, match="^cursor format version is unsupported"):
        decode(b64(payload))


@pytest.mark.parametrize(
    ("snapshot", "offset", "message"),
    [
        (b"\x87\x00", b"\x32", "^cursor snapshot id is malformed"),
        (b"\x80\x80\x00", b"\x32", "^cursor snapshot id is malformed"),
        (b"\xff" * 9 + b"\x01", b"\x32", "^cursor snapshot id is malformed"),
        (b"\xff" * 10 + b"\x01", b"\x32", "^cursor snapshot id is malformed"),
        (b"\x07", b"\xb2\x00", "^cursor offset is malformed"),
        (b"\x07", b"\x80" * 10 + b"\x01", "^cursor offset is malformed"),
        (b"\x07", b"\xff" * 9 + b"\x02", "^cursor offset is malformed"),
    ],
)
def test_non_canonical_or_oversized_varints_are_malformed(snapshot: bytes, offset: bytes, message: str):
    with pytest.raises(CursorInvalidError, match=message):
        decode(crafted(snapshot, offset))


def test_a_canonical_offset_past_the_limit_is_out_of_range():
    with pytest.raises(CursorInvalidError, match="^cursor offset is out of range"):
        decode(crafted(b"\x07", b"\x80\x80\x80\x80\x08"))


def test_a_crafted_canonical_cursor_decodes():
    assert decode(crafted(b"\x07", b"\xac\x02")) == 300


def test_a_changed_byte_fails_the_checksum():
    body = bytearray(base64.urlsafe_b64decode(encode_cursor(SNAPSHOT, 50, IDENTITY, SORTING) + "="))
    body[5] ^= 0x01
    with pytest.raises(CursorInvalidError, match="^cursor checksum does not match"):
        decode(b64(bytes(body)))


def test_an_unsupported_version_byte_is_rejected():
    with pytest.raises(CursorInvalidError, match="^cursor format version is unsupported"):
        decode(crafted(b"\x07", b"\x32", version=1))


def decodes_or_raises_a_cursor_error(token: str) -> None:
    try:
        offset = decode(token)
    except (CursorInvalidError, CursorSnapshotExpiredError):
        return
    assert 0 <= offset <= 2**31 - 1


@given(st.text())
def test_any_text_decodes_to_an_offset_or_raises_a_cursor_error(token: str):
    decodes_or_raises_a_cursor_error(token)


@given(st.text(alphabet=ALPHABET + "=", max_size=70))
def test_any_base64url_text_decodes_to_an_offset_or_raises_a_cursor_error(token: str):
    decodes_or_raises_a_cursor_error(token)


@given(st.binary(max_size=48))
def test_any_body_decodes_to_an_offset_or_raises_a_cursor_error(body: bytes):
    decodes_or_raises_a_cursor_error(b64(body))
    decodes_or_raises_a_cursor_error(b64(signed(body)))
