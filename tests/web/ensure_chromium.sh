#!/usr/bin/env bash
# Install Debian's Chromium for the browser tests (tests/web) if /usr/bin/chromium is missing.
# Needs root; the tests drive it through Playwright (never `playwright install`).
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
    apt-get update
    apt-get install -y chromium chromium-driver
fi
