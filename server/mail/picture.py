"""The board picture of a mail: the game's SVG board rasterised to a PNG (resvg).

Mail clients such as Gmail and desktop Outlook show no SVG, so the HTML part
of a mail embeds the same picture the web page draws
(``templates/boards/<id>.svg``) as a PNG attached to the message
(``cid:``). It is drawn at twice the size it is shown, so that it stays sharp
on phone screens, and shown at most :data:`MAX_WIDTH` pixels wide, the width
mail clients lay a message out in.

    >>> svg = '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"><rect '
    >>> picture = rasterise(svg + 'width="300" height="100" fill="green"/></svg>')
    >>> picture.width, picture.height, png_size(picture.png)
    (300, 100, (600, 200))
    >>> rasterise(svg.replace('"300"', '"1200"') + 'width="1200" height="100"/></svg>').height
    50
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from xml.etree import ElementTree

import resvg_py

#: The widest a board is shown in a mail, in CSS pixels.
MAX_WIDTH = 600
#: Pixels drawn per pixel shown.
DENSITY = 2
NUMBER = re.compile(r"[0-9.]+")


@dataclass(frozen=True)
class Picture:
    """A PNG and the size it is shown at (CSS pixels)."""

    png: bytes
    width: int
    height: int


def svg_size(svg: str) -> tuple[float, float]:
    """The size of an SVG document: its ``width`` and ``height``, else its ``viewBox``'s."""
    root = ElementTree.fromstring(svg)
    width, height = root.get("width"), root.get("height")
    if width and height and NUMBER.match(width) and NUMBER.match(height):
        return float(NUMBER.match(width)[0]), float(NUMBER.match(height)[0])
    *_, box_width, box_height = (float(value) for value in root.get("viewBox", "").split())
    return box_width, box_height


def rasterise(svg: str, density: int = DENSITY, max_width: int = MAX_WIDTH) -> Picture:
    """The PNG of a standalone SVG document, at most ``max_width`` wide when shown, drawn at
    ``density`` pixels per pixel shown."""
    width, _ = svg_size(svg)
    shown = round(min(width, max_width))
    png = bytes(resvg_py.svg_to_bytes(svg_string=svg, width=shown * density, background="white"))
    return Picture(png, shown, round(png_size(png)[1] / density))


def png_size(png: bytes) -> tuple[int, int]:
    """The pixel size of a PNG, from its header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return struct.unpack(">II", png[16:24])
