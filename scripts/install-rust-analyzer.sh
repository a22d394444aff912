#!/usr/bin/env bash
# Builds the pinned rust-analyzer (kivgraph runs `rust-analyzer scip`) from crates.io alone and
# prints where the binary is. Why crates.io: the rustup component and the GitHub release binaries
# are not reachable everywhere, but rust-analyzer is published weekly as `ra_ap_rust-analyzer`,
# whose package has a `[[bin]] rust-analyzer` target and a Cargo.lock, so `cargo install --locked`
# reproduces it. The first build takes about 7 min on 2 cores (49 MB binary); re-runs are instant:
# the build is skipped when the cached binary runs and reports the pinned version.
# Needs cargo + rustc >= 1.95. 0.0.348 is the newest that builds on 1.95: 0.0.349 claims
# rust-version 1.95 but uses `std::assert_matches` (unstable there), and later ones need newer rustc.
set -euo pipefail

RA_VERSION=0.0.348
TOOLS_CACHE=${KIVGRAPH_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kivgraph/tools}
RA_DIR=$TOOLS_CACHE/rust-analyzer-$RA_VERSION   # kivgraph looks here (kivgraph/scip/analyzers.py)
RA_BIN=$RA_DIR/bin/rust-analyzer

die() { echo "install-rust-analyzer: FAILED: $*" >&2; exit 1; }

# Runs and says `rust-analyzer 0.0.348` (the version comes from CFG_RELEASE at build time).
ok() { [ "$("$1" --version 2>/dev/null)" = "rust-analyzer $RA_VERSION" ]; }

if ! ok "$RA_BIN"; then
  command -v cargo >/dev/null || die "'cargo' is not on PATH (install Rust >= 1.95 with rustup)"
  minor=$(rustc --version 2>/dev/null | sed -n 's/^rustc 1\.\([0-9]*\).*/\1/p')
  [ -n "$minor" ] && [ "$minor" -ge 95 ] \
    || die "ra_ap_rust-analyzer $RA_VERSION needs rustc >= 1.95, found '$(rustc --version 2>&1)'"
  mkdir -p "$TOOLS_CACHE"
  cd "$TOOLS_CACHE"  # away from any project's .cargo/config.toml
  echo "== building rust-analyzer $RA_VERSION into $RA_DIR (about 7 min on 2 cores)" >&2
  # Build into a scratch root and move it in place only on success, so a broken or interrupted
  # build never leaves a half-installed directory that looks cached. (cargo's warning to add
  # `.partial/bin` to PATH is harmless: nothing needs it on PATH.)
  rm -rf "$RA_DIR.partial"
  CFG_RELEASE=$RA_VERSION cargo install --locked ra_ap_rust-analyzer --version "$RA_VERSION" \
      --root "$RA_DIR.partial" \
    || die "cargo install --locked ra_ap_rust-analyzer --version $RA_VERSION (needs crates.io)"
  rm -rf "$RA_DIR" && mv "$RA_DIR.partial" "$RA_DIR"
  ok "$RA_BIN" || die "$RA_BIN does not report 'rust-analyzer $RA_VERSION'"
fi

# Without the rust-src component, std and everything inside std macros (println!, vec!, ...) go
# unresolved. `rust-analyzer scip` then runs `rustup component add rust-src` by itself, which
# needs static.rust-lang.org; where that fails it logs an error and indexes the rest anyway.
if [ ! -d "$(rustc --print sysroot 2>/dev/null)/lib/rustlib/src/rust/library/core" ]; then
  echo "note: rust-src is not installed; indexes will lack std (try: rustup component add rust-src)" >&2
fi

echo "rust-analyzer $RA_VERSION: $RA_BIN" >&2
echo "$RA_BIN"
