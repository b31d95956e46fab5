#!/usr/bin/env bash
# Install axe-core (the accessibility engine the browser tests inject into Chromium) from the
# npm registry into tests/web/axe/node_modules, at the version its package-lock.json pins.
# Installs Debian's npm first if it is missing (needs root).
set -euo pipefail
cd "$(dirname "$0")/axe"
if ! command -v npm >/dev/null; then
    apt-get update
    apt-get install -y npm
fi
npm ci --no-audit --no-fund --silent
