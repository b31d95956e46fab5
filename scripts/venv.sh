# Sourced by ./run and ./test: make .venv and install the project into it, again only when
# setup.cfg or pyproject.toml changed. ./run needs what serving needs; ./test sets
# TURNPOST_EXTRAS=dev for the test tools too (pytest, hypothesis, Playwright...).
python=${PYTHON:-python3}
extras=${TURNPOST_EXTRAS:-}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
fresh() {  # fresh STAMP: the stamp exists and is newer than the project's metadata
  [ -f "$1" ] && [ "$1" -nt setup.cfg ] && [ "$1" -nt pyproject.toml ]
}
if [ -n "$extras" ]; then
  stamp=.venv/.installed-$extras
  target=".[$extras]"
else
  stamp=.venv/.installed
  target="."
fi
# an environment with the dev extras also serves
if ! fresh "$stamp" && ! { [ -z "$extras" ] && fresh .venv/.installed-dev; }; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e "$target"
  touch "$stamp"
fi
# the gettext catalogs (translations/*/LC_MESSAGES/messages.po), compiled whenever one changed
if [ -n "$(find translations -name '*.po' -newer translations/.compiled 2>/dev/null)" ] || [ ! -f translations/.compiled ]; then
  .venv/bin/pybabel -q compile -d translations
  touch translations/.compiled
fi
