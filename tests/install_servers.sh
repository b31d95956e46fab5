#!/usr/bin/env bash
# Install Debian's PostgreSQL, Redis, nginx and Dovecot (IMAP) servers for the tests
# (tests/servers.py) when missing. Arguments: the packages wanted, postgresql, redis-server, nginx
# and/or dovecot-imapd (none: all). Needs root, as CI has; non-interactive and quiet. The tests
# start their own servers in temporary directories: no daemon is started by the packages (a
# policy-rc.d refuses it while apt runs, unless the machine has a policy of its own).
set -euo pipefail
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(postgresql redis-server nginx dovecot-imapd)
missing=()
for package in "${packages[@]}"; do
    case "$package" in
        postgresql) compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null || missing+=("$package") ;;
        redis-server) command -v redis-server >/dev/null || missing+=("$package") ;;
        nginx) PATH="$PATH:/usr/sbin" command -v nginx >/dev/null || missing+=("$package") ;;
        dovecot-imapd) [ -x /usr/sbin/dovecot ] && [ -x /usr/lib/dovecot/imap ] || missing+=("$package") ;;
        *) echo "install_servers.sh: unknown package $package" >&2; exit 2 ;;
    esac
done
[ ${#missing[@]} -gt 0 ] || exit 0
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi
export DEBIAN_FRONTEND=noninteractive
apt=(apt-get -qq -o DPkg::Lock::Timeout=300)
"${apt[@]}" update
"${apt[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
