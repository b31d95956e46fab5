"""What mails say: subjects, news in sentences, human times, example moves, the mail commands.

Everything here speaks to one player about one game, with names and the
game's own words (the engine's ``describe``, ``describe_result`` and
``prompt``); notation appears only where the player may copy it into a reply.

    >>> when("2026-11-28T00:54:00.000000Z", now="2026-11-26T10:00:00.000000Z")
    'Sat 28 Nov, 00:54 UTC'
    >>> outcome({"winners": [0, 2]}, ["Ann", "Bob", "Cy"], seat=2)
    'Ann and you win'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import format_datetime

from engines import Engine
from engines.base import IllegalMove
from engines.phrases import N_
from engines.words import plural
from server.games.clock import parse_time, utcnow
from server.i18n import catalog, listing, zone_label
from server.phrases import render

#: The mail commands, each with what it does, in the order ``help`` lists them.
COMMANDS = (
    ("board", N_("the board again")),
    ("moves", N_("all your legal moves, each in words")),
    ("resign", N_("give up this game (the others win)")),
    ("takeback", N_("offer to take back your last move (the others accept or decline)")),
    ("takeback accept", N_("accept the takeback offered to you (takeback decline: refuse it)")),
    ("if enter a1 N then enter e5 S", N_("a conditional move: if they play the first, you answer")),
    ("vacation 7", N_("pause your turn clock for 7 days (at most 30 days a year)")),
    ("stop", N_("no more mail about this game (you still play on your page)")),
    ("start", N_("mail about this game again")),
    ("help", N_("this list")),
)
#: Each language's word for each mail command (the English word is always understood too).
COMMAND_WORDS = {
    "en": {},
    "nl": {
        "board": "bord",
        "moves": "zetten",
        "resign": "opgeven",
        "vacation": "vakantie",
        "stop": "stop",
        "start": "start",
        "help": "hulp",
    },
    "de": {
        "board": "brett",
        "moves": "züge",
        "resign": "aufgeben",
        "vacation": "urlaub",
        "stop": "stopp",
        "start": "start",
        "help": "hilfe",
    },
    "fr": {
        "board": "plateau",
        "moves": "coups",
        "resign": "abandon",
        "vacation": "vacances",
        "stop": "stop",
        "start": "reprise",
        "help": "aide",
    },
}
#: How many example moves a mail shows at most.
EXAMPLES = 5
#: How long a name may be in a subject line.
SUBJECT_NAME = 24
#: The most decisions a whole turn of an example takes.
MAX_DECISIONS = 40
#: Actions that do nothing: never the first example.
IDLE_ACTIONS = frozenset({"pass"})


def when(moment: str, now: str | None = None, language: str = "en", zone: str = "UTC") -> str:
    """A stored moment as players read it in ``language`` and in the time ``zone`` (named),
    with its weekday (and its year if not this one).

    >>> when("2027-01-04T09:05:00.000000Z", now="2026-12-30T00:00:00.000000Z")
    'Mon 4 Jan 2027, 09:05 UTC'
    >>> when("2026-11-28T00:54:00.000000Z", now="2026-11-26T10:00:00.000000Z", language="de")
    'Sa. 28 Nov., 00:54 UTC'
    >>> when("2026-11-28T00:54:00.000000Z", "2026-11-26T10:00:00.000000Z", zone="America/New_York")
    'Fri 27 Nov, 19:54 New York time'
    """
    place = ZoneInfo(zone)
    moment_time = parse_time(moment)
    this_year = parse_time(now or utcnow()).astimezone(place).year
    same_year = moment_time.astimezone(place).year == this_year
    pattern = "EEE d MMM, HH:mm" if same_year else "EEE d MMM y, HH:mm"
    local = format_datetime(moment_time, pattern, tzinfo=place, locale=language)
    return f"{local} {zone_label(zone, language)}"


def short(name: str) -> str:
    """A name cut to fit a subject line.

    >>> short("Ann"), short("A" * 30)
    ('Ann', 'AAAAAAAAAAAAAAAAAAAAAAA…')
    """
    return name if len(name) <= SUBJECT_NAME else name[: SUBJECT_NAME - 1] + "…"


def title(engine: Engine, names: Sequence[str], seat: int, language: str = "en") -> str:
    """The game as a player calls it: "Siam with Bob", "King of Siam with Bob and Cy".

    >>> from engines import get_engine
    >>> title(get_engine("siam"), ["Ann", "Bob"], 0), title(get_engine("siam"), "ABC", 0, "nl")
    ('Siam with Bob', 'Siam met B en C')
    """
    others = [short(name) for index, name in enumerate(names) if index != seat]
    if not others:
        return engine.name
    with_others = catalog(language).gettext("%(game)s with %(names)s")
    return with_others % {"game": engine.name, "names": listing(others, language)}


def outcome(result: dict[str, Any], names: Sequence[str], seat: int, language: str = "en") -> str:
    """Who won, said to ``seat`` in ``language``: "you win", "Bob wins", "nobody wins"."""
    translations = catalog(language)
    others = [short(names[index]) for index in result["winners"] if index != seat]
    if not result["winners"]:
        return translations.gettext("nobody wins")
    if not others:
        return translations.gettext("you win")
    if seat in result["winners"]:
        said = translations.gettext("%(names)s and you win")
    else:
        said = translations.ngettext("%(names)s wins", "%(names)s win", len(others))
    return said % {"names": listing(others, language)}


def scores(result: dict[str, Any], names: Sequence[str], language: str = "en") -> str:
    """The final scores in words, or "" when the game has none.

    >>> scores({"scores": {"0": 12, "1": 9}}, ["Ann", "Bob"])
    'Scores: Ann 12, Bob 9.'
    """
    given = result.get("scores") or {}
    if not isinstance(given, dict) or not given:
        return ""
    parts = []
    for key, value in given.items():
        index = int(key) if str(key).isdigit() else None
        who = names[index] if index is not None and index < len(names) else str(key)
        parts.append(f"{who} {value}")
    return catalog(language).gettext("Scores: %(scores)s.") % {"scores": ", ".join(parts)}


def sentence(
    engine: Engine,
    state: dict[str, Any],
    seat: int,
    move: dict,
    names: Sequence[str],
    language: str = "en",
) -> str:
    """What playing ``move`` now would do, in the game's words (the engine's ``describe``), in
    ``language``."""
    said = engine.describe(state, engine.apply(state, seat, move), seat, move, names)
    return render(said, names, language)


def _kinds(engine: Engine, state: dict[str, Any], seat: int, moves: list[dict]) -> list[list[dict]]:
    """``moves`` in kinds, taking one kind of each action in turn (idle actions such as a pass
    last): a kind is an action and the answer to the first question on which that action's
    moves differ (a card, an animal, a square)."""
    questions = engine.questions(state, seat)
    actions: dict[Any, list[dict]] = {}
    for move in moves:
        actions.setdefault(move.get("action"), []).append(move)
    per_action, idle = [], []
    for action, group in actions.items():
        split = next((q for q in questions if len({q.answer(move) for move in group}) > 1), None)
        by_answer: dict[Any, list[dict]] = {}
        for move in group:
            by_answer.setdefault(None if split is None else split.answer(move), []).append(move)
        (idle if action in IDLE_ACTIONS else per_action).append(list(by_answer.values()))
    rounds = max((len(kinds) for kinds in per_action), default=0)
    busy = [kinds[i] for i in range(rounds) for kinds in per_action if i < len(kinds)]
    return busy + [kind for kinds in idle for kind in kinds]


def example_turns(
    engine: Engine, state: dict[str, Any], seat: int, moves: list[dict], limit: int = EXAMPLES
) -> list[tuple[dict, dict]]:
    """A handful of ``moves`` all different in kind, each as ``(decision, whole turn)``: the
    whole turn is the move that plays the rest of the turn too (:func:`whole_turn`).

    One move of each kind in turn across the actions (never an idle one such
    as a pass first), each chosen to differ from the ones before in its other
    answers too (another facing, another province).
    """
    questions = engine.questions(state, seat)
    seen: set[tuple[str, Any]] = set()
    chosen = []
    for group in _kinds(engine, state, seat, moves)[:limit]:
        move = max(group, key=lambda m: sum((q.key, q.answer(m)) not in seen for q in questions))
        seen.update((q.key, q.answer(move)) for q in questions)
        chosen.append((move, whole_turn(engine, state, seat, move)))
    return chosen


def example_moves(
    engine: Engine,
    state: dict[str, Any],
    seat: int,
    turns: list[tuple[dict, dict]],
    names: Sequence[str],
    language: str = "en",
) -> list[tuple[str, str]]:
    """The whole turns of :func:`example_turns` as ``(notation, sentence)``.

    >>> from engines import get_engine
    >>> siam = get_engine("siam")
    >>> state = siam.setup(2, siam.options({}), seed=1)
    >>> turns = example_turns(siam, state, 0, siam.legal_moves(state, 0))
    >>> for notation, text in example_moves(siam, state, 0, turns, "AB")[:2]:
    ...     print(notation, "|", text)
    enter a1 N | A enters an elephant on a1, facing north.
    enter b1 E | A enters an elephant on b1, facing east.
    """
    return [
        (engine.format(move), sentence(engine, state, seat, move, names, language))
        for _, move in turns
    ]


def splits_turns(turns: list[tuple[dict, dict]]) -> bool:
    """Whether any of the example ``turns`` is several decisions (that may be sent one by one)."""
    return any(decision != move for decision, move in turns)


def whole_turn(engine: Engine, state: dict[str, Any], seat: int, move: dict) -> dict:
    """The whole turn that begins with the decision ``move``, as one move (its later
    decisions the first the engine lists), so one reply plays the turn; ``move`` itself
    when the turn's decisions cannot be joined from here (its card is played already).

    >>> from engines import get_engine
    >>> kos = get_engine("king-of-siam")
    >>> state = kos.setup(2, kos.options({}), seed=3)
    >>> seat = kos.to_move(state)[0]
    >>> card = next(m for m in kos.legal_moves(state, seat) if m.get("card") == "rama")
    >>> kos.format(whole_turn(kos, state, seat, card)).count("; take ")
    1
    """
    steps, now = [move], engine.apply(state, seat, move)
    while engine.turn_goes_on(now, seat, steps[-1]) and len(steps) < MAX_DECISIONS:
        steps.append(engine.legal_moves(now, seat)[0])
        now = engine.apply(now, seat, steps[-1])
    try:
        return engine.join_turn(state, seat, steps)
    except IllegalMove:
        return move


def command_word(usage: str, language: str) -> str:
    """A command as ``language`` writes it: "vacation 7" -> "vakantie 7" in Dutch."""
    name, _, argument = usage.partition(" ")
    said = COMMAND_WORDS.get(language, {}).get(name, name)
    return f"{said} {argument}".strip()


def command_list(language: str = "en") -> list[tuple[str, str]]:
    """The mail commands as ``(what to write, what it does)`` in ``language``."""
    translations = catalog(language)
    return [(command_word(usage, language), translations.gettext(does)) for usage, does in COMMANDS]


def commands_line(language: str = "en") -> str:
    """The mail commands in one line, for the end of every mail, in ``language``.

    >>> commands_line()[:40]
    'Reply with one word for more: board, mov'
    >>> commands_line("de")[:55]
    'Antworte mit einem Wort für mehr: brett, züge, aufgeben'
    """
    names = dict.fromkeys(usage.split()[0] for usage, _ in COMMANDS if not usage.startswith("if "))
    words = [command_word(name, language) for name in names]
    line = catalog(language).gettext(
        "Reply with one word for more: %(commands)s (%(help)s says what each does)."
    )
    return line % {"commands": ", ".join(words), "help": command_word("help", language)}


def moves_count(count: int) -> str:
    """``"56 legal moves"``."""
    return plural(count, "legal move")
