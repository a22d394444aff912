"""The envelope of a generation blob: zstd around CBOR `{format, format_version, digest, payload}`.

Blobs come from remotes and artifacts, so reading one trusts nothing it declares: decompression
stops at `decompressed_limit`, CBOR lengths are never allocated ahead, the digest is checked, and
an unknown major version is refused. Knows nothing of what the payload holds (store/codec.py does).
"""

import hashlib
from typing import cast

import cbor2
import zstandard

from kivgraph.errors import CorruptGenerationError, UnsupportedFormatError

FORMAT_NAME = "kivgraph-generation"
FORMAT_MAJOR = 1
FORMAT_MINOR = 4
ZSTD_LEVEL = 3
DIGEST_NAME = "blake2b-256"


def seal(payload: bytes) -> bytes:
    """The blob for a payload: the envelope with this format's version and the payload's digest."""
    envelope = {
        "format": FORMAT_NAME,
        "format_version": [FORMAT_MAJOR, FORMAT_MINOR],
        "digest_algorithm": DIGEST_NAME,
        "digest": hashlib.blake2b(payload, digest_size=32).digest(),
        "payload": payload,
    }
    return zstandard.ZstdCompressor(level=ZSTD_LEVEL).compress(cbor2.dumps(envelope))


MAX_EXPANSION = 64
"""A blob may decompress to at most 64 times its own size: real generations measure 1.6–5.4×
(`benchmarks/codec_bench.py`), a zstd bomb thousands."""
MAX_DECOMPRESSED = 2 << 30
"""Nor to more than 2 GiB, whatever its size: 55 times the 100k-symbol / 1M-edge generation (38 MB)."""
MIN_DECOMPRESSED = 1 << 20
"""Nor is a small blob held to its ratio below 1 MiB, which costs nothing to allow."""
_CHUNK = 1 << 20


def decompressed_limit(size: int) -> int:
    """The most bytes a blob of `size` bytes may decompress to."""
    return min(MAX_DECOMPRESSED, max(MIN_DECOMPRESSED, MAX_EXPANSION * size))


def _decompress(blob: bytes, where: str) -> bytes:
    """The blob's zstd frame, refused before allocating when it declares more than the limit, and
    streamed under the limit when it declares nothing."""
    limit = decompressed_limit(len(blob))
    too_big = f"it would decompress to more than {limit:,} bytes, the most a {len(blob):,}-byte blob may hold"
    try:
        declared = zstandard.get_frame_parameters(blob).content_size
        if declared != zstandard.CONTENTSIZE_UNKNOWN:
            if declared > limit:
                raise CorruptGenerationError(where, f"its zstd frame declares {declared:,} bytes: {too_big}")
            return zstandard.ZstdDecompressor().decompress(blob)
        reader = zstandard.ZstdDecompressor().stream_reader(blob, read_across_frames=False)
        chunks: list[bytes] = []
        total = 0
        while chunk := reader.read(_CHUNK):
            total += len(chunk)
            if total > limit:
                raise CorruptGenerationError(where, too_big)
            chunks.append(chunk)
        return b"".join(chunks)
    except zstandard.ZstdError as err:
        raise CorruptGenerationError(where, f"the zstd frame is damaged or truncated ({err})") from err


def cbor_value(data: bytes, where: str, what: str) -> object:
    """CBOR decoded without trusting a declared length (cbor2 reads what is there, never allocates
    what a header claims) and with cbor2's nesting limit; any failure is corruption."""
    try:
        value: object = cbor2.loads(data)
    except (cbor2.CBORError, ValueError, TypeError, LookupError, OverflowError, EOFError) as err:
        raise CorruptGenerationError(where, f"its {what} is not valid CBOR ({err})") from err
    return value


def _version_number(value: object) -> int | None:
    """A format version number, or None: bool is not a number here, and a 5,000-digit bignum would
    not even print."""
    return value if type(value) is int and 0 <= value < 1 << 31 else None


def read_envelope(blob: bytes, where: str = "generation") -> tuple[tuple[int, int], bytes]:
    """Decompress (within `decompressed_limit`), check the format and the digest; return (version, payload)."""
    loaded = cbor_value(_decompress(blob, where), where, "envelope")
    if not isinstance(loaded, dict):
        raise CorruptGenerationError(where, "it is not a kivgraph generation (no format marker)")
    envelope = cast("dict[object, object]", loaded)
    if envelope.get("format") != FORMAT_NAME:
        raise CorruptGenerationError(where, "it is not a kivgraph generation (no format marker)")
    version = envelope.get("format_version")
    if not (isinstance(version, list) and len(cast("list[object]", version)) == 2):
        raise CorruptGenerationError(where, "its format_version is missing or malformed")
    major, minor = (_version_number(x) for x in cast("list[object]", version))
    if major is None or minor is None:
        raise CorruptGenerationError(where, "its format_version is missing or malformed")
    if major != FORMAT_MAJOR:
        raise UnsupportedFormatError(where, major, minor, FORMAT_MAJOR)
    payload, digest = envelope.get("payload"), envelope.get("digest")
    if not isinstance(payload, bytes) or not isinstance(digest, bytes):
        raise CorruptGenerationError(where, "its payload or digest is missing")
    if hashlib.blake2b(payload, digest_size=32).digest() != digest:
        raise CorruptGenerationError(where, "its payload does not match its digest")
    return (major, minor), payload
