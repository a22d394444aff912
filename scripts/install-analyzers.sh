#!/usr/bin/env bash
# Installs the pinned SCIP indexers kivgraph runs, then prints where they are and their versions:
#   scip-typescript, scip-python  npm packages pinned in tools/package.json + tools/package-lock.json,
#                                 installed into tools/node_modules (untracked)
#   scip-go                       built from the Go module proxy into the user cache dir
# Needs node + npm, and go >= 1.26 (scip-go v0.2.x declares `go 1.26.0`). Safe to re-run:
# `npm ci` reinstalls from the lockfile, and scip-go is built only when its binary is missing.
# (rust-analyzer has its own script: scripts/install-rust-analyzer.sh.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The Go indexer lives at github.com/scip-code/scip-go now (formerly github.com/sourcegraph/scip-go).
SCIP_GO_MODULE=github.com/scip-code/scip-go
SCIP_GO_VERSION=v0.2.9
TOOLS_CACHE=${KIVGRAPH_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kivgraph/tools}
SCIP_GO_BIN=$TOOLS_CACHE/scip-go-$SCIP_GO_VERSION/scip-go
NPM_BIN=$PWD/tools/node_modules/.bin

die() { echo "install-analyzers: FAILED: $*" >&2; exit 1; }

for cmd in node npm go; do
  command -v "$cmd" >/dev/null || die "'$cmd' is not on PATH"
done

# --- npm: scip-typescript + scip-python, exactly as locked -------------------------------------
echo "== npm packages in tools/" >&2
if [ -f tools/package-lock.json ]; then
  (cd tools && npm ci --no-audit --no-fund) || die "npm ci in tools/ (scip-typescript, scip-python)"
else
  (cd tools && npm install --no-audit --no-fund) || die "npm install in tools/ (scip-typescript, scip-python)"
fi

# --- scip-go: pinned `go install` into its own versioned cache dir ------------------------------
if [ ! -x "$SCIP_GO_BIN" ] || ! "$SCIP_GO_BIN" --version >/dev/null 2>&1; then
  echo "== building scip-go $SCIP_GO_VERSION into $(dirname "$SCIP_GO_BIN") (about 20 s cold)" >&2
  # GOFLAGS is cleared so a user-wide setting (e.g. -mod=vendor) cannot break `go install pkg@version`.
  GOFLAGS= GOBIN=$(dirname "$SCIP_GO_BIN") go install "$SCIP_GO_MODULE/cmd/scip-go@$SCIP_GO_VERSION" \
    || die "go install $SCIP_GO_MODULE/cmd/scip-go@$SCIP_GO_VERSION (needs go >= 1.26 and the Go module proxy)"
fi

# --- report: each analyzer must run and report the pinned version ------------------------------
report() {  # report NAME PATH EXPECTED-VERSION
  local version
  version=$("$2" --version 2>/dev/null) || die "$1 does not run: $2 --version"
  [ "$version" = "$3" ] || die "$1 at $2 reports version '$version', expected '$3'"
  printf '%-16s %-8s %s\n' "$1" "$version" "$2"
}
pinned() {  # pinned NPM-PACKAGE -> the exact version in tools/package.json
  node -p "require('./tools/package.json').dependencies['$1']" || die "reading $1 from tools/package.json"
}
report scip-typescript "$NPM_BIN/scip-typescript" "$(pinned @sourcegraph/scip-typescript)"
report scip-python "$NPM_BIN/scip-python" "$(pinned @sourcegraph/scip-python)"
report scip-go "$SCIP_GO_BIN" "${SCIP_GO_VERSION#v}"
