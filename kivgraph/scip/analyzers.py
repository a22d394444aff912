"""The SCIP indexers kivgraph runs: which language each serves, where its binary is, its version.

Owns discovery only (running them is `scip/run.py`). A binary is looked for, in order: the
`KIVGRAPH_<NAME>` environment variable (an explicit path), the versioned tools cache that
scripts/install-*.sh fill, the `tools/node_modules/.bin` of a source checkout, then PATH.
"""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kivgraph.model import Language, Provenance

VERSION_TIMEOUT_SECONDS = 30


@dataclass(frozen=True, slots=True)
class AnalyzerSpec:
    name: str
    languages: tuple[Language, ...]
    provenance: Provenance
    pinned: str
    cache_binary: str
    """Path of the binary inside the tools cache, relative to it."""
    install: str
    """How to install it, for messages."""

    @property
    def env_var(self) -> str:
        return "KIVGRAPH_" + self.name.upper().replace("-", "_")


ANALYZERS: tuple[AnalyzerSpec, ...] = (
    AnalyzerSpec(
        "scip-typescript",
        (Language.TYPESCRIPT, Language.JAVASCRIPT),
        Provenance.SCIP_TYPESCRIPT,
        "0.4.0",
        "",
        "scripts/install-analyzers.sh (npm: @sourcegraph/scip-typescript@0.4.0)",
    ),
    AnalyzerSpec(
        "scip-python",
        (Language.PYTHON,),
        Provenance.SCIP_PYTHON,
        "0.6.6",
        "",
        "scripts/install-analyzers.sh (npm: @sourcegraph/scip-python@0.6.6)",
    ),
    AnalyzerSpec(
        "scip-go",
        (Language.GO,),
        Provenance.SCIP_GO,
        "0.2.9",
        "scip-go-v0.2.9/scip-go",
        "scripts/install-analyzers.sh (go install github.com/scip-code/scip-go/cmd/scip-go@v0.2.9; needs go >= 1.26)",
    ),
    AnalyzerSpec(
        "rust-analyzer",
        (Language.RUST,),
        Provenance.RUST_ANALYZER_SCIP,
        "0.0.348",
        "rust-analyzer-0.0.348/bin/rust-analyzer",
        "scripts/install-rust-analyzer.sh (cargo install ra_ap_rust-analyzer@0.0.348; a long first build)",
    ),
)


def analyzer_for(language: Language) -> AnalyzerSpec | None:
    """The indexer that makes `language` exact; None for Dart (only a supplied --scip index does)."""
    for spec in ANALYZERS:
        if language in spec.languages:
            return spec
    return None


@dataclass(frozen=True, slots=True)
class Located:
    spec: AnalyzerSpec
    path: str
    """"" when not found."""
    version: str
    problem: str
    """Why it cannot be used ("" when it can)."""

    @property
    def usable(self) -> bool:
        return bool(self.path) and not self.problem


def tools_cache() -> Path:
    explicit = os.environ.get("KIVGRAPH_TOOLS_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kivgraph" / "tools"


def checkout_tools() -> Path:
    """`tools/` of the source checkout this package runs from (an editable install)."""
    return Path(__file__).resolve().parents[2] / "tools"


def candidates(spec: AnalyzerSpec) -> list[tuple[str, str]]:
    """(where, path) pairs in search order."""
    found: list[tuple[str, str]] = []
    explicit = os.environ.get(spec.env_var)
    if explicit:
        found.append((spec.env_var, explicit))
    if spec.cache_binary:
        found.append(("tools cache", str(tools_cache() / spec.cache_binary)))
    found.append(("tools/node_modules", str(checkout_tools() / "node_modules" / ".bin" / spec.name)))
    on_path = shutil.which(spec.name)
    if on_path:
        found.append(("PATH", on_path))
    return found


def locate(spec: AnalyzerSpec, probe: bool = True) -> Located:
    """The first candidate that exists, with the version it reports.

    Without `probe` the binary is not asked its version (half a second for the node-based
    indexers): an index states the version of the tool that wrote it.
    """
    for where, path in candidates(spec):
        if not os.path.isfile(path):
            if where == spec.env_var:
                return Located(spec, path, "", f"{spec.env_var} points at {path}, which does not exist")
            continue
        if not probe:
            usable = os.access(path, os.X_OK)
            return Located(
                spec, path, "", "" if usable else f"`{path}` is not executable; reinstall with {spec.install}"
            )
        version, problem = _version(path)
        if problem:
            problem = f"{problem}; install a working one with {spec.install}"
        return Located(spec, path, version, problem)
    return Located(spec, "", "", f"not installed; install it with {spec.install}")


def _version(path: str) -> tuple[str, str]:
    try:
        done = run_tool([path, "--version"], None, VERSION_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return "", f"`{path} --version` did not answer within {VERSION_TIMEOUT_SECONDS}s"
    except OSError as err:
        return "", f"`{path}` cannot be run ({err.strerror})"
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        return "", f"`{path} --version` exited with {done.returncode}: {lines[0] if lines else 'no output'}"
    words = done.stdout.strip().split()
    return (_version_word(words), "")


def _version_word(words: list[str]) -> str:
    """`0.4.0`, `rust-analyzer 0.0.348 (…)`, `scip-go 0.2.9` → the first word that starts with a digit."""
    for word in words:
        if word[:1].isdigit():
            return word.strip(",")
    return words[0] if words else ""


SCRUBBED_VARIABLES = frozenset({"OUTPUT", "MODULE_VERSION", "MODULE_NAME", "VERSION", "GOFLAGS"})
"""scip-go reads these as if they were its flags (`VERSION=1` makes `index` print and exit 0)."""


def analyzer_environment() -> dict[str, str]:
    """The environment analyzers run in: ours, less variables that would silently change them."""
    return {key: value for key, value in os.environ.items() if key not in SCRUBBED_VARIABLES}


def run_tool(
    args: list[str], cwd: Path | None, timeout: float, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run an analyzer (or its toolchain) in the analyzer environment (plus `extra_env`), output
    captured as text.

    Raises subprocess.TimeoutExpired and OSError for the caller to turn into its own words.
    """
    return subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        env={**analyzer_environment(), **(extra_env or {})},
        check=False,
    )
