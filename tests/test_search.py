"""bytes.find and bytes.rfind as functions (unievent._search): the compiled build calls
them in C, the pure build calls the methods themselves (the stand-in), and both give
what the methods give, for every haystack, needle and start: a needle found at the
start, the end, several times or not at all, empty, longer than the haystack, and a
start before the haystack, inside it, at its end and past it.  The stand-in is the
definition; it is loaded from its source in either build, so the compiled build tests
the C module against it.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import unievent
from tests.helpers import stand_in
from unievent import _search

compiled_only = pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is not installed")

STAND_IN = stand_in("_search")
# few distinct bytes, so that needles are found, and found again
haystacks = st.binary(max_size=40).map(lambda b: bytes(c % 3 + 10 for c in b))
needles = st.binary(max_size=6).map(lambda b: bytes(c % 3 + 10 for c in b))


def test_the_stand_in_is_the_methods() -> None:
    assert STAND_IN.find is bytes.find and STAND_IN.rfind is bytes.rfind


@given(haystacks, needles, st.none() | st.integers(min_value=-50, max_value=50))
def test_find_and_rfind_give_what_the_methods_give(data: bytes, sub: bytes, start: int | None) -> None:
    if start is None:
        assert _search.find(data, sub) == data.find(sub)
        assert _search.rfind(data, sub) == data.rfind(sub)
    else:
        assert _search.find(data, sub, start) == data.find(sub, start)
        assert _search.rfind(data, sub, start) == data.rfind(sub, start)


@pytest.mark.parametrize(
    ("data", "sub", "start"),
    [
        (b"a\n\nb\n\n", b"\n\n", 0),
        (b"a\n\nb\n\n", b"\n\n", 2),
        (b"a\n\nb\n\n", b"\n\n", 3),
        (b"\n\n\n", b"\n\n", 1),
        (b"abc", b"", 3),
        (b"abc", b"", 4),
        (b"abc", b"abcd", 0),
        (b"", b"", 0),
        (b"", b"\n", 0),
        (b"data: x\r\n\r\ndata: y", b"\r\n\r\n", -12),
        (b'{"a":"x\\"}],"b":1}', b'"}],"b":', 5),  # a longer needle, its first byte found before it
    ],
)
def test_the_edges_give_what_the_methods_give(data: bytes, sub: bytes, start: int) -> None:
    assert _search.find(data, sub, start) == data.find(sub, start)
    assert _search.rfind(data, sub, start) == data.rfind(sub, start)


@compiled_only
def test_the_compiled_build_has_the_c_functions() -> None:
    assert type(_search.find).__name__ == "builtin_function_or_method"
    assert _search.find is not bytes.find


@compiled_only
@pytest.mark.parametrize(
    "args", [(b"a", "a"), ("a", b"a"), (bytearray(b"a"), b"a"), (b"a",), (b"a", b"a", 0, 1), (b"a", b"a", 1.0)]
)
def test_other_arguments_are_a_type_error(args: tuple[object, ...]) -> None:
    with pytest.raises(TypeError):
        _search.find(*args)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _search.rfind(*args)  # type: ignore[arg-type]
