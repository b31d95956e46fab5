#!/usr/bin/env bash
# Install Debian's wrk for bench/throughput.py if /usr/bin/wrk is missing (needs root).
set -euo pipefail
if [ ! -x /usr/bin/wrk ]; then
    apt-get update
    apt-get install -y wrk
fi
