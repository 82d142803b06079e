"""What the package needs from Python versions newer than the oldest it supports (3.9).

A leaf: it imports nothing from ferroflow, so every layer, the framework included, may
use it.

The wheel is built for the stable ABI from CPython 3.9, so the package's own Python must
run there too; what 3.10+ spells natively is given here once, with the same behaviour.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar, overload

__all__ = ["zip_strict"]

_T1 = TypeVar("_T1")
_T2 = TypeVar("_T2")
_T3 = TypeVar("_T3")
_T4 = TypeVar("_T4")


@overload
def zip_strict(a: Iterable[_T1], /) -> Iterator[tuple[_T1]]: ...
@overload
def zip_strict(a: Iterable[_T1], b: Iterable[_T2], /) -> Iterator[tuple[_T1, _T2]]: ...
@overload
def zip_strict(
    a: Iterable[_T1], b: Iterable[_T2], c: Iterable[_T3], /
) -> Iterator[tuple[_T1, _T2, _T3]]: ...
@overload
def zip_strict(
    a: Iterable[_T1], b: Iterable[_T2], c: Iterable[_T3], d: Iterable[_T4], /
) -> Iterator[tuple[_T1, _T2, _T3, _T4]]: ...
@overload
def zip_strict(*iterables: Iterable[Any]) -> Iterator[tuple[Any, ...]]: ...


def zip_strict(*iterables: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """`zip(*iterables, strict=True)`: a `ValueError` when the lengths differ.

    Python 3.10's own on 3.10 and later; on 3.9 the same checks and messages
    ("zip() argument 2 is shorter than argument 1"), raised when the shorter one ends.
    """
    if sys.version_info >= (3, 10):
        return zip(*iterables, strict=True)
    return _zip_strict_py39(iterables)


def _zip_strict_py39(iterables: tuple[Iterable[Any], ...]) -> Iterator[tuple[Any, ...]]:
    iterators = [iter(it) for it in iterables]
    if not iterators:
        return
    while True:
        items = []
        for i, it in enumerate(iterators):
            try:
                items.append(next(it))
            except StopIteration:
                if i > 0:
                    plural = "s 1-" if i > 1 else " "
                    raise ValueError(
                        f"zip() argument {i + 1} is shorter than argument{plural}{i}"
                    ) from None
                # The first ended: every other must end here too.
                for j, other in enumerate(iterators[1:], start=2):
                    try:
                        next(other)
                    except StopIteration:
                        continue
                    plural = "s 1-" if j > 2 else " "
                    raise ValueError(
                        f"zip() argument {j} is longer than argument{plural}{j - 1}"
                    ) from None
                return
        yield tuple(items)
