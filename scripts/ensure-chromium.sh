#!/bin/sh
# Installs Debian's Chromium for the browser test (test/browser/) when it is not there yet.
# Needs root (CI runs as root); non-interactive so it never waits for a prompt.
set -eu

CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

if [ -x "$CHROMIUM" ]; then
  echo "chromium present: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing at $CHROMIUM and installing it needs root: run 'apt-get install -y chromium' as root" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# timeout bounds a hung mirror; the install itself is a few hundred MB.
timeout 600 apt-get update -q
timeout 1200 apt-get install -y -q --no-install-recommends chromium fonts-liberation
echo "chromium installed: $("$CHROMIUM" --version)"
