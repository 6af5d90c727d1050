# The holes of a run of hot frames, matched against a template's bytes: the pure-Python
# build's stand-in for the compiled build's `_holes` extension module (_holes.c), and
# the definition that module is tested against (tests/test_holes.py).
#
# A template (unievent._ondemand.Template) is the bytes of a hot frame around one
# string: `holes` compares a frame with those bytes and cuts out what lies in the
# string's place, frame after frame, up to the first that differs.  A template with a
# second hole, a JSON value after the string (ValueTemplate: Gemini's usage), is cut
# by `value_holes`.  Compiled code
# would make each comparison a slice and each counter a `%` format (a new bytes
# object, a call): about 2,300 instructions a frame, where the C module compares in
# place.  Run as Python source, the template calls its own loop where it has one
# (Template._interpreted_run) and this one for the other shapes.
from __future__ import annotations

from typing import Final

__all__ = ["PAD_FIRST", "PAD_LAST", "PAD_NONE", "Shape", "holes", "value_holes"]

#: where a template's padding lies: none, after the string, before it
PAD_NONE: Final = 0
PAD_LAST: Final = 1
PAD_FIRST: Final = 2

#: a template's bytes as `holes` reads them: (head, head2, counter_in_head, tail, tail2,
#: counter_in_tail, pad, between, pad_size, plain); see Template
Shape = tuple[bytes, bytes, bool, bytes, bytes, bool, int, bytes, int, bytes]


def holes(payloads: list[bytes], start: int, stop: int, counter: int, step: int, shape: Shape) -> list[bytes]:
    """The string's hole of each payload of `payloads[start:stop]`, up to the first that
    is not the template's: one whose bytes differ from the template's outside the hole,
    or whose hole is empty.  The first payload's counter is `counter`, each next one's
    `step` more.

    A payload is `head [+ digits + head2]`, then the hole with the padding and `between`
    on the side `pad` says (PAD_LAST: hole + between + padding; PAD_FIRST: padding +
    between + hole), then `[tail2 + digits +] tail`.  A padding holds only bytes that
    the table `plain` maps to themselves; after the string it starts after the last
    quote before the tail, before it it ends at its learned length (`pad_size`) when
    `between` follows there, else at the first quote.  Bytes that are not `bytes` are
    no template's.
    """
    head, head2, counter_in_head, tail, tail2, counter_in_tail, pad, between, pad_size, plain = shape
    out: list[bytes] = []
    prefix = head
    tail_size = len(tail)
    between_size = len(between)
    for payload in payloads[start:stop]:
        if type(payload) is not bytes:
            break
        if counter_in_head:
            prefix = head + b"%d" % counter + head2
        begin = len(prefix)
        if payload[:begin] != prefix:
            break
        end = len(payload) - tail_size
        if end < begin or payload[end:] != tail:
            break
        if counter_in_tail:
            suffix = tail2 + b"%d" % counter
            cut = end - len(suffix)
            if cut < begin or payload[cut:end] != suffix:
                break
            end = cut
        if pad == PAD_LAST:
            before, mark, padding = payload[begin:end].rpartition(b'"')
            quote = begin + len(before) + 1
            cut = quote - between_size
            if not mark or cut < begin or payload[cut:quote] != between or padding.translate(plain) != padding:
                break
            end = cut
        elif pad == PAD_FIRST:
            quote = begin + pad_size
            if payload[quote : quote + between_size] != between:
                quote = payload.find(b'"', begin, end)
                if quote < 0 or payload[quote : quote + between_size] != between:
                    break
            padding = payload[begin:quote]
            if padding.translate(plain) != padding:
                break
            begin = quote + between_size
        if end <= begin:
            break
        out.append(payload[begin:end])
        counter += step
    return out


def value_holes(
    payloads: list[bytes],
    start: int,
    stop: int,
    head: bytes,
    mid: bytes,
    tail: bytes,
    strings: list[bytes],
    values: list[bytes],
) -> None:
    """The two holes of each payload of `payloads[start:stop]`, up to the first that is
    not `head + string + mid + value + tail`: the string's appended to `strings`, the
    value's to `values` (neither parsed here).  The string's hole ends at the first
    place after the head where `mid`'s first four bytes are, which must be `mid`, and
    `mid` must end before the tail (see ValueTemplate).  Bytes that are not `bytes` are
    no template's."""
    first = len(head)
    mid_start = mid[:4]
    size = len(mid)
    last = len(tail)
    for payload in payloads[start:stop]:
        if type(payload) is not bytes:
            break
        end = len(payload) - last
        if payload[:first] != head or payload[end:] != tail:
            break
        cut = payload.find(mid_start, first)
        if cut < 0 or cut + size > end or payload[cut : cut + size] != mid:
            break
        strings.append(payload[first:cut])
        values.append(payload[cut + size : end])
