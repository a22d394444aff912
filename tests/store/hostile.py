"""Blobs a reader must survive: zstd bombs, CBOR declaring more than it holds, and payloads that are
damaged (or written by a newer kivgraph) and then re-sealed with a valid digest, so only the reader's
own validation stands between them and the query layer."""

import copy
import hashlib
import struct
from typing import Any

import cbor2
import zstandard
from hypothesis import strategies as st

from kivgraph.store import codec, envelope

Body = dict[str, Any]

RLE_BLOCK = 128 * 1024
"""zstd's largest block: an RLE block repeats one byte this many times for 4 bytes of input."""


def rle_frame(size: int, declare: bool) -> bytes:
    """A real zstd frame of `size` zero bytes made of RLE blocks: 3 GiB in 98 KB. With `declare`, its
    header states the size (a reader that trusts it allocates all of it at once)."""
    descriptor = bytes([0x80, 0x38]) + struct.pack("<I", size) if declare else bytes([0x00, 0x38])
    blocks: list[bytes] = []
    left = size
    while left:
        n = min(RLE_BLOCK, left)
        left -= n
        blocks.append(struct.pack("<I", int(left == 0) | 1 << 1 | n << 3)[:3] + b"\x00")
    return b"\x28\xb5\x2f\xfd" + descriptor + b"".join(blocks)


def opened(blob: bytes) -> Body:
    """The payload body of a blob, as plain CBOR data to damage."""
    outer = cbor2.loads(zstandard.ZstdDecompressor().decompress(blob))
    body: Body = cbor2.loads(outer["payload"])
    return body


def sealed_payload(payload: bytes, version: tuple[int, int] = (envelope.FORMAT_MAJOR, envelope.FORMAT_MINOR)) -> bytes:
    """Payload bytes in an envelope whose digest matches them: the digest no longer protects the reader."""
    fields = {
        "format": envelope.FORMAT_NAME,
        "format_version": list(version),
        "digest_algorithm": envelope.DIGEST_NAME,
        "digest": hashlib.blake2b(payload, digest_size=32).digest(),
        "payload": payload,
    }
    return zstandard.ZstdCompressor().compress(cbor2.dumps(fields))


def sealed(body: object, version: tuple[int, int] = (envelope.FORMAT_MAJOR, envelope.FORMAT_MINOR)) -> bytes:
    return sealed_payload(cbor2.dumps(body), version)


# -- mutations -------------------------------------------------------------------------------------

NEWER = "FROM_A_NEWER_WRITER"
ODD = st.sampled_from(
    [None, 0, -1, 1.5, True, "x", b"", b"\x00\x00\x00", b"\xff\xff\xff\xff", [], {}, [1, "a"], {"a": 1}, 2**40,
     -(2**70), 2**100, ["a", 1], [["a"]], cbor2.CBORTag(4242, 1)]
).map(lambda value: copy.deepcopy(value) if isinstance(value, list | dict) else value)  # fmt: skip
"""Each draw a fresh copy: a list drawn twice must not end up inside itself (cbor2 refuses cycles)."""
EDGES = [-(2**31), -2, -1, 0, 1, 2, 3, 4, 5, 6, 9, 17, 100, 2**31 - 1]
INT32 = st.sampled_from(EDGES) | st.integers(-(2**31), 2**31 - 1)
"""Values at the edges of every range a column has (NONE, 0, the sample's table sizes), and any other."""


def _column(body: Body, data: st.DataObject) -> None:
    table = data.draw(st.sampled_from([*codec.SCHEMA]), label="table")
    columns = body.get(table)
    if not isinstance(columns, dict) or not columns:
        return
    name = data.draw(st.sampled_from(sorted(columns)), label="column")
    raw = columns[name]
    how = data.draw(st.sampled_from(["set", "set", "set", "truncate", "extend", "odd", "delete"]), label="how")
    if how == "set" and isinstance(raw, bytes) and len(raw) >= 4:
        at = data.draw(st.integers(0, len(raw) // 4 - 1), label="row") * 4
        columns[name] = raw[:at] + struct.pack("<i", data.draw(INT32, label="value")) + raw[at + 4 :]
    elif how == "truncate" and isinstance(raw, bytes):
        columns[name] = raw[: data.draw(st.integers(0, max(0, len(raw) - 1)), label="keep")]
    elif how == "extend" and isinstance(raw, bytes):
        columns[name] = raw + data.draw(st.binary(min_size=1, max_size=8), label="extra")
    elif how == "odd":
        columns[name] = data.draw(ODD, label="odd")
    elif how == "delete":
        del columns[name]


def _list(body: Body, key: str | None, name: str, data: st.DataObject) -> None:
    """Damage a list of texts: the string table, a vocabulary, the header's languages."""
    holder = body if key is None else body.get(key)
    if not isinstance(holder, dict) or not isinstance(holder.get(name), list):
        return
    values: list[Any] = holder[name]
    how = data.draw(st.sampled_from(["newer", "replace", "append odd", "truncate", "odd", "delete"]), label="how")
    if how == "newer":
        values.append(NEWER)
    elif how == "replace" and values:
        values[data.draw(st.integers(0, len(values) - 1), label="at")] = NEWER
    elif how == "append odd":
        values.append(data.draw(ODD, label="odd"))
    elif how == "truncate":
        del values[data.draw(st.integers(0, len(values)), label="keep") :]
    elif how == "odd":
        holder[name] = data.draw(ODD, label="odd")
    else:
        del holder[name]


def _header(body: Body, data: st.DataObject) -> None:
    header = body.get("header")
    if not isinstance(header, dict) or not header:
        return
    name = data.draw(st.sampled_from(sorted(header)), label="field")
    if data.draw(st.booleans(), label="delete"):
        del header[name]
    else:
        header[name] = data.draw(ODD | st.just([["scip-go"]]) | st.just([["p", "c"]]), label="odd")


def _structure(body: Body, data: st.DataObject) -> None:
    """A table or the body itself replaced, removed, or given something a newer writer might add."""
    key = data.draw(st.sampled_from(sorted(body)), label="key")
    how = data.draw(st.sampled_from(["odd", "delete", "new column", "new key"]), label="how")
    if how == "odd":
        body[key] = data.draw(ODD, label="odd")
    elif how == "delete":
        del body[key]
    elif how == "new column" and isinstance(body[key], dict):
        body[key]["added_later"] = data.draw(st.binary(max_size=16) | ODD, label="column")
    else:
        body["added_later"] = data.draw(ODD, label="odd")


def mutate(body: Body, data: st.DataObject) -> None:
    """One to three damages: mostly column values (the cheapest to forge), then vocabularies (what a
    newer writer changes), the string table, the header and the shape of the body."""
    for _ in range(data.draw(st.integers(1, 3), label="damages")):
        where = data.draw(st.sampled_from(["column"] * 4 + ["vocabulary"] * 2 + ["strings", "header", "structure"]))
        if where == "column":
            _column(body, data)
        elif where == "vocabulary":
            _list(body, "vocabularies", data.draw(st.sampled_from([*codec.VOCABULARIES]), label="vocabulary"), data)
        elif where == "strings":
            _list(body, None, "strings", data)
        elif where == "header":
            if data.draw(st.booleans(), label="languages"):
                _list(body, "header", "languages", data)
            else:
                _header(body, data)
        elif body:
            _structure(body, data)


def version(data: st.DataObject) -> tuple[int, int]:
    """Mostly this reader's version; sometimes a later minor, which must read the same way."""
    return envelope.FORMAT_MAJOR, data.draw(st.sampled_from([envelope.FORMAT_MINOR, envelope.FORMAT_MINOR + 1, 0]))
