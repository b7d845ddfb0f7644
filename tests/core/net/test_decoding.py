"""Payload decoding in bounded pieces: bombs are cut at the cap, faults are said."""

from __future__ import annotations

import gzip
import zlib

import pytest
from recrawl.core.net.decoding import PayloadDecoder
from recrawl.core.net.http import decode_body

MiB = 1 << 20


def gzip_of_zeros(size: int) -> bytes:
    """``size`` zero bytes, gzipped a megabyte at a time (never all in memory)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(MiB)
    parts = [packer.compress(zeros) for _ in range(size // MiB)]
    return b"".join(parts) + packer.flush()


def deflate(data: bytes, *, raw: bool = False) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
    return packer.compress(data) + packer.flush()


def test_pieces_are_bounded_and_a_bomb_is_cut_at_the_cap():
    bomb = gzip_of_zeros(32 * MiB)
    assert len(bomb) < MiB / 10
    decoder = PayloadDecoder(bomb, "gzip", 3 * MiB + 5, piece=64 * 1024)
    sizes = [len(piece) for piece in decoder]
    assert max(sizes) <= 64 * 1024
    assert sum(sizes) == decoder.decoded_bytes == 3 * MiB + 5
    assert decoder.cut and decoder.error is None
    assert "cut" in (decoder.problem or "")


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", deflate),
        ("deflate", lambda data: deflate(data, raw=True)),
        ("gzip, gzip", lambda data: gzip.compress(gzip.compress(data))),
        ("deflate, gzip", lambda data: gzip.compress(deflate(data))),
        ("identity", lambda data: data),
        (None, lambda data: data),
    ],
)
def test_every_accepted_coding_decodes_whole(encoding, encode):
    text = b"<p>" + b"caf\xc3\xa9 " * 50_000 + b"</p>"
    decoder = PayloadDecoder(encode(text), encoding, 10 * MiB, piece=4096)
    assert b"".join(decoder) == text
    assert (decoder.cut, decoder.error, decoder.note, decoder.problem) == (False, None, None, None)


@pytest.mark.parametrize(
    ("encoding", "make"),
    [
        ("gzip", lambda: gzip_of_zeros(16 * MiB)),
        ("deflate", lambda: deflate(bytes(16 * MiB))),
        ("gzip, gzip", lambda: gzip.compress(gzip_of_zeros(16 * MiB))),  # gzip-in-gzip
    ],
    ids=["gzip", "deflate", "gzip-in-gzip"],
)
def test_every_kind_of_bomb_stops_at_the_cap(encoding, make):
    decoder = PayloadDecoder(make(), encoding, MiB)
    assert sum(len(piece) for piece in decoder) == MiB and decoder.cut


def test_a_body_exactly_the_cap_is_not_cut():
    decoder = PayloadDecoder(gzip.compress(b"x" * 1000), "gzip", 1000, piece=100)
    assert b"".join(decoder) == b"x" * 1000 and not decoder.cut


def test_corrupt_gzip_is_an_error_after_what_decoded():
    good = gzip.compress(b"hello " * 20_000)
    broken = good[:200] + bytes(b ^ 0x55 for b in good[200:400]) + good[400:]
    decoder = PayloadDecoder(broken, "gzip", MiB, piece=1024)
    got = b"".join(decoder)
    assert decoder.error is not None and decoder.error.startswith("cannot decode the gzip body")
    assert 0 < len(got) < 6 * 20_000 and (b"hello " * 20_000).startswith(got)
    assert decoder.problem == decoder.error


def test_not_gzip_at_all_decodes_nothing():
    decoder = PayloadDecoder(b"<html>plain, but labelled gzip</html>", "gzip", MiB)
    assert b"".join(decoder) == b"" and decoder.decoded_bytes == 0
    assert "incorrect header check" in (decoder.error or "")


def test_a_stream_cut_when_received_decodes_as_far_as_it_goes():
    whole = gzip.compress(bytes(range(256)) * 4000)
    decoder = PayloadDecoder(whole[: len(whole) // 2], "gzip", MiB)
    got = b"".join(decoder)
    assert 0 < len(got) < 256 * 4000 and (bytes(range(256)) * 4000).startswith(got)
    assert decoder.error is None and "ends early" in (decoder.note or "")


def test_an_unknown_coding_is_said_and_decode_body_keeps_the_body():
    decoder = PayloadDecoder(b"\x1b\x03\x00", "br", MiB)
    assert list(decoder) == [] and decoder.error == "unsupported Content-Encoding 'br'"
    body, problem = decode_body(b"\x1b\x03\x00", "br", MiB)
    assert (
        body == b"\x1b\x03\x00"
        and problem == "unsupported Content-Encoding 'br'; body kept encoded"
    )


def test_decode_body_joins_the_pieces_up_to_its_cap():
    assert decode_body(gzip.compress(b"abc" * 1000), "gzip", 10 * MiB) == (b"abc" * 1000, None)
    body, problem = decode_body(gzip_of_zeros(32 * MiB), "gzip", 2 * MiB)
    assert len(body) == 2 * MiB and "decompression bomb" in (problem or "")
    assert decode_body(b"", "gzip", 10) == (b"", None)
