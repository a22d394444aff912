"""The derived `rust:` repository: the toolchain's standard library, indexed as a generation of its own.

Rust code leans on `core`, `alloc` and `std` everywhere; their source ships with the toolchain
(`rustup component add rust-src`). Indexed once per rustc release into `rust:<release>` (no
commit, no branch: nothing clones it and nothing moves it), it lets queries follow a use into
the standard library when asked to, and withhold it by default.
"""

import os
import subprocess
from pathlib import Path

from kivgraph.errors import KivgraphError
from kivgraph.indexing import Progress, index_snapshot
from kivgraph.model import DERIVED_PREFIX, Generation, Language
from kivgraph.scip.analyzers import run_tool
from kivgraph.snapshot import Snapshot, directory_files

LIBRARY = Path("lib") / "rustlib" / "src" / "rust" / "library"


class RustToolchainError(KivgraphError):
    code = "RUST_TOOLCHAIN_UNAVAILABLE"


def _rustc(*args: str) -> str:
    try:
        done = run_tool(["rustc", *args], None, 60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise RustToolchainError(f"cannot run rustc ({err}); install Rust from https://rustup.rs.") from None
    if done.returncode != 0:
        raise RustToolchainError(f"rustc {' '.join(args)} failed: {done.stderr.strip()[:300]}")
    return done.stdout.strip()


def rust_release() -> str:
    """The release of the rustc on PATH: `rustc 1.95.0 (59807616e 2026-04-14)` → `1.95.0`."""
    words = _rustc("--version").split()
    if len(words) < 2:
        raise RustToolchainError("rustc --version printed nothing readable.")
    return words[1]


def library_of(sysroot: str | None) -> Path:
    """The standard library's Cargo workspace inside a sysroot (the active toolchain's by default)."""
    root = Path(sysroot) if sysroot else Path(_rustc("--print", "sysroot"))
    library = root / LIBRARY
    if not (library / "Cargo.toml").is_file():
        raise RustToolchainError(
            f"no standard library source under {root}: install it with `rustup component add rust-src`."
        )
    return library


def default_location(release: str) -> Path:
    """Where the derived generation of a release is kept when no --out is given."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kivgraph" / "derived" / f"rust-{release}.kgen"


def index_rust_library(
    sysroot: str | None = None,
    progress: Progress | None = None,
    jobs: int | None = None,
    run_analyzers: bool = True,
) -> Generation:
    """Index the standard library of a toolchain as the repository `rust:<release>`.

    rust-analyzer runs on a copy (it writes build-script output into `target/`, and the
    toolchain directory is not ours to write into).
    """
    release = rust_release()
    library = library_of(sysroot)
    snap = Snapshot(f"{DERIVED_PREFIX}{release}", "", "", "", False)
    snap.files = list(directory_files(library))
    return index_snapshot(snap, frozenset({Language.RUST}), progress, jobs, (), run_analyzers)
