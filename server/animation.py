"""A game as an animated GIF: its board at the start and after every log entry.

Each frame is the public board picture the pages and mails draw
(``templates/boards/<id>.svg``, rasterised by :mod:`server.mail.picture`)
with the last entry highlighted, above a caption naming the entry
(``12. Bob: move b2 b3 E``). So the GIF has one frame more than the log has
entries: the first shows the start. Pillow writes the GIF; the caption keeps
two equal boards (a resignation changes none) apart as frames of their own.

Drawing takes 0.1 to 0.3 s a frame (frames are at most :data:`FRAME_WIDTH`
pixels wide), so each worker keeps the last
:data:`KEPT_PICTURES` GIFs it drew, by game and log length: asking again for
the same game costs nothing until it changes.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from server.boards import Board, last_touched, render_board
from server.games.game import Game, game_object
from server.games.service import GameService
from server.mail.picture import rasterise

#: How long each frame shows, in milliseconds, and the last one (the final position).
FRAME_MS = 1200
LAST_FRAME_MS = 4000
#: The widest a frame's board is, in pixels (drawing takes time with the area).
FRAME_WIDTH = 480
#: The caption strip under each board, in pixels.
CAPTION_HEIGHT = 28
CAPTION_SIZE = 16
#: The GIFs a worker keeps, newest last, by ``(game id, entries, status)``.
KEPT_PICTURES = 16
_kept: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
_kept_lock = threading.Lock()


def caption(game: Game, entry: dict[str, Any] | None) -> str:
    """What a frame's caption says: the start, or the entry ``seq. Name: notation``."""
    if entry is None:
        return "Start"
    name = game.seats[entry["seat"]].name
    return f"{entry['seq']}. {name}: {entry['notation']}"


def frame(svg: str, text: str) -> Image.Image:
    """One frame: the board picture with ``text`` in a strip beneath it, in 256 colours."""
    board = Image.open(io.BytesIO(rasterise(svg, density=1, max_width=FRAME_WIDTH).png)).convert(
        "RGB"
    )
    picture = Image.new("RGB", (board.width, board.height + CAPTION_HEIGHT), "white")
    picture.paste(board, (0, 0))
    font = ImageFont.load_default(size=CAPTION_SIZE)
    ImageDraw.Draw(picture).text((8, board.height + 5), text, fill="black", font=font)
    return picture.quantize(colors=256, dither=Image.Dither.NONE)


def game_gif(games: GameService, game: Game) -> bytes:
    """The animated GIF of ``game`` as everyone may see it: one frame per position, the
    start included (so ``seq + 1`` frames); drawn once per game and log length."""
    key = (game.id, game.seq, game.status)
    with _kept_lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    picture = draw_gif(games, game)
    with _kept_lock:
        _kept[key] = picture
        while len(_kept) > KEPT_PICTURES:
            _kept.popitem(last=False)
    return picture


def draw_gif(games: GameService, game: Game) -> bytes:
    """:func:`game_gif` drawn anew."""
    states = games.states(game)
    entries: list[dict[str, Any] | None] = [None, *games.move_log(game)]
    frames = []
    for at, (state, entry) in enumerate(zip(states, entries, strict=True)):
        view = game_object(game, None, at, state)
        last = last_touched(entry["move"]) if entry is not None else frozenset()
        frames.append(frame(render_board("svg", view, Board(last=last)), caption(game, entry)))
    durations = [FRAME_MS] * (len(frames) - 1) + [LAST_FRAME_MS]
    out = io.BytesIO()
    frames[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations,
        loop=0,
        disposal=1,
    )
    return out.getvalue()
