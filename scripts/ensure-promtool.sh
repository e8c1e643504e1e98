#!/bin/sh
# Makes sure `promtool` (Prometheus's own checker, from Debian's prometheus package) is on PATH for
# test/metrics/promtool.test.ts: installs the package when root and apt are there. Non-interactive.
set -u
if command -v promtool >/dev/null 2>&1; then
  echo "promtool present: $(promtool --version 2>&1 | head -1)"
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # timeout bounds a hung mirror; only the package is installed, its service is not started here.
  if timeout 1200 apt-get install -y -q --no-install-recommends prometheus || { timeout 600 apt-get update -q && timeout 1200 apt-get install -y -q --no-install-recommends prometheus; }; then
    command -v promtool >/dev/null 2>&1 && { echo "promtool installed: $(promtool --version 2>&1 | head -1)"; exit 0; }
  fi
fi
echo "promtool is not installed and could not be: install Debian's prometheus package (apt-get install prometheus)" >&2
exit 1
