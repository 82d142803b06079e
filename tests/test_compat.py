"""`ferroflow._compat`: what the package needs from Pythons newer than 3.9.

CI runs 3.11, where `zip_strict` is the builtin's own; the 3.9 path is checked here
directly against the builtin `zip(strict=True)`: the same tuples and the same errors.
"""

import pytest

from ferroflow._compat import _zip_strict_py39, zip_strict

CASES = [
    (),
    ([],),
    ([1, 2],),
    ([1, 2], "ab"),
    ([1, 2], "ab", (3, 4)),
    ([1], "ab"),  # argument 2 longer
    ([1, 2], "a"),  # argument 2 shorter
    ([1, 2], "ab", (3,)),  # argument 3 shorter than arguments 1-2
    ([1, 2], "ab", (3, 4, 5)),  # argument 3 longer than arguments 1-2
    ([], "", (3,)),
    ([1, 2, 3], "a", (3, 4)),
    ([1, 2], "abc"),
]


def _outcome(zipped):
    try:
        return list(zipped), None
    except ValueError as e:
        return None, str(e)


@pytest.mark.parametrize("iterables", CASES)
def test_the_39_path_zips_and_fails_as_the_builtin_does(iterables):
    # Fed as iterators (read once, no len()), a fresh set for each of the three.
    def fresh():
        return [iter(i) for i in iterables]

    expected = _outcome(zip(*fresh(), strict=True))
    assert _outcome(_zip_strict_py39(tuple(fresh()))) == expected
    assert _outcome(zip_strict(*fresh())) == expected
