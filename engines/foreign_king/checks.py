"""Shape checks for move fields: a bad value is an :class:`IllegalMove`, never a crash."""

from __future__ import annotations

from typing import Any

from engines.base import IllegalMove
from engines.foreign_king.board import KINDS, PROVINCES, SUPPLY
from engines.phrases import phrase

FIELDS: dict[str, frozenset[str]] = {
    "build_factory": frozenset({"kind", "province"}),
    "place_citizens": frozenset({"province", "count"}),
    "move_citizens": frozenset({"from", "paths"}),
    "step": frozenset({"from", "to"}),
    "parliament": frozenset({"from"}),
    "king": frozenset({"path"}),
    "queen": frozenset({"copy"}),
    "bring_parliament": frozenset({"accept"}),
    "deactivate": frozenset({"factory"}),
    "virtual": frozenset({"steps"}),
    "set_position": frozenset({"position"}),
    "turn": frozenset({"moves"}),
}


def no_extra_fields(move: dict[str, Any]) -> None:
    """Refuse fields the move's action does not have."""
    allowed = FIELDS.get(move["action"], frozenset()) | {"action"}
    extra = sorted(str(key) for key in set(move) - allowed)
    if extra:
        raise IllegalMove(
            phrase(
                "Unknown field(s) for %(action)s: %(fields)s.",
                action=move["action"],
                fields=", ".join(extra),
            ),
            "shape",
        )


def field(move: dict[str, Any], name: str) -> Any:
    """The value of ``name`` in ``move``; refuse the move when it is missing."""
    if name not in move:
        raise IllegalMove(phrase("The move needs a '%(field)s' field.", field=name), "shape")
    return move[name]


def province(value: Any) -> str:
    """``value`` as a province name."""
    if not isinstance(value, str) or value not in PROVINCES:
        raise IllegalMove(
            phrase("%(value)s is not a province of Belgium on this map.", value=repr(value)),
            "province",
        )
    return value


def place(value: Any) -> str:
    """``value`` as a province name or ``"supply"``."""
    if value == SUPPLY:
        return SUPPLY
    return province(value)


def kind(value: Any) -> str:
    """``value`` as a factory kind."""
    if value not in KINDS:
        raise IllegalMove(
            phrase("%(value)s is not a factory kind (textile or metal).", value=repr(value)),
            "shape",
        )
    return value


def integer(value: Any, name: str) -> int:
    """``value`` as a whole number (booleans refused)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalMove(phrase("'%(field)s' must be a whole number.", field=name), "shape")
    return value


def listing(value: Any, name: str) -> list[Any]:
    """``value`` as a non-empty list."""
    if not isinstance(value, list) or not value:
        raise IllegalMove(phrase("'%(field)s' must be a non-empty list.", field=name), "shape")
    return value
