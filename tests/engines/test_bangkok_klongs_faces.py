"""The Bangkok Klongs rules page, rendered by the app's Jinja: what it teaches (its notation
examples are checked for every game in tests/server/test_rules_pages.py)."""

from __future__ import annotations

import re

import pytest
from flask import Flask, render_template

from engines.bangkok_klongs import BangkokKlongsEngine

ENGINE = BangkokKlongsEngine()


@pytest.fixture
def rules(app: Flask) -> str:
    """The rules page as the app renders it."""
    with app.test_request_context():
        return render_template("rules/bangkok-klongs.html")


def test_rules_page_tells_the_goal_a_turn_the_market_days_and_the_end(rules: str) -> None:
    headings = re.findall(r"<h2>(.*?)</h2>", rules)
    for wanted in ("The goal", "Your turn", "Special boats", "Market days", "Notation"):
        assert wanted in headings
    assert "<title>How to play Bangkok Klongs - Turnpost</title>" in rules
