"""A tiny seeded PRNG whose whole state is one integer kept in the game state.

All chance in an engine comes from here, so the same seed and the same moves
give the same states byte for byte. It is SplitMix64: small, fast, and its
state serialises as a plain JSON number.

    >>> rng = Rng(42)
    >>> rng.randrange(6) in range(6)
    True
    >>> Rng(42).shuffled([1, 2, 3]) == Rng(42).shuffled([1, 2, 3])
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1


class Rng:
    """SplitMix64 generator; ``state`` is the integer to store in the game state."""

    def __init__(self, state: int) -> None:
        self.state = state & _MASK

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def randrange(self, n: int) -> int:
        """A uniform integer in ``range(n)`` (rejection sampling, no modulo bias)."""
        if n <= 0:
            raise ValueError("randrange needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            value = self.next64()
            if value < limit:
                return value % n

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list with ``items`` in random order (Fisher-Yates)."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.randrange(i + 1)
            result[i], result[j] = result[j], result[i]
        return result
