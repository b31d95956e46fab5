#!/usr/bin/env bash
# Install Debian's PostgreSQL, Redis and Dovecot (IMAP) servers for the tests (tests/servers.py)
# when missing. Arguments: the packages wanted, postgresql, redis-server and/or dovecot-imapd
# (none: all). Needs root, as CI has; non-interactive and quiet. The tests start their own
# servers in temporary directories: a daemon the package may start on its default port is never
# used.
set -euo pipefail
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(postgresql redis-server dovecot-imapd)
missing=()
for package in "${packages[@]}"; do
    case "$package" in
        postgresql) compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=("$package") ;;
        redis-server) command -v redis-server >/dev/null || missing+=("$package") ;;
        dovecot-imapd) [ -x /usr/sbin/dovecot ] && [ -x /usr/lib/dovecot/imap ] || missing+=("$package") ;;
        *) echo "install_servers.sh: unknown package $package" >&2; exit 2 ;;
    esac
done
[ ${#missing[@]} -gt 0 ] || exit 0
export DEBIAN_FRONTEND=noninteractive
apt=(apt-get -qq -o DPkg::Lock::Timeout=300)
"${apt[@]}" update
"${apt[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
