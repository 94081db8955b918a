#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing: Chromium (Playwright drives
# /usr/bin/chromium), Prometheus and Alertmanager (the metrics integration is tested against the
# real servers), PostgreSQL 15 and Redis 7 (the scale-out backends; the tests start their own
# servers in temp dirs, never the packaged services), wrk (benchmarks). Idempotent and quick when
# everything is present.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v prometheus-alertmanager >/dev/null 2>&1 || need+=(prometheus-alertmanager)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/lib/postgresql/15/bin/initdb ] || need+=(postgresql)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
echo "Installing Debian packages: ${need[*]}"
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "Missing ${need[*]} and not root: install them with apt-get install ${need[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
# The Debian packages may start daemons on default ports; the tests use their own ports and dirs.
for svc in prometheus prometheus-alertmanager redis-server postgresql; do $SUDO service "$svc" stop >/dev/null 2>&1 || true; done
