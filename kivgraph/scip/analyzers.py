"""The SCIP indexers kivgraph runs: which language each serves, where its binary is, its version.

Owns discovery only (installing is `scip/install.py`, running them is `scip/run.py`). A binary is
looked for, in order: the `KIVGRAPH_<NAME>` environment variable (an explicit path), the tools
cache that `kivgraph analyzers install` fills (for rust-analyzer first the toolchain component it
recorded there), the `tools/node_modules/.bin` of a source checkout, then PATH.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import cast

from kivgraph.model import Language, Provenance

VERSION_TIMEOUT_SECONDS = 30


@dataclass(frozen=True, slots=True)
class AnalyzerSpec:
    name: str
    languages: tuple[Language, ...]
    provenance: Provenance
    pinned: str
    cache_binary: str
    """Path of the binary inside the tools cache, relative to it ("" for the npm ones, whose
    directory is named after the lockfile: `npm_binary`)."""
    how: str
    """What `kivgraph analyzers install` does for it, for messages."""
    npm_package: str = ""

    @property
    def env_var(self) -> str:
        return "KIVGRAPH_" + self.name.upper().replace("-", "_")

    @property
    def install_hint(self) -> str:
        return f"`kivgraph analyzers install --languages {self.languages[0].value}` ({self.how})"


SCIP_GO_MODULE = "github.com/scip-code/scip-go"
"""Formerly github.com/sourcegraph/scip-go."""

ANALYZERS: tuple[AnalyzerSpec, ...] = (
    AnalyzerSpec(
        "scip-typescript",
        (Language.TYPESCRIPT, Language.JAVASCRIPT),
        Provenance.SCIP_TYPESCRIPT,
        "0.4.0",
        "",
        "npm ci of @sourcegraph/scip-typescript@0.4.0; needs Node.js >= 18 with npm",
        "@sourcegraph/scip-typescript",
    ),
    AnalyzerSpec(
        "scip-python",
        (Language.PYTHON,),
        Provenance.SCIP_PYTHON,
        "0.6.6",
        "",
        "npm ci of @sourcegraph/scip-python@0.6.6; needs Node.js >= 18 with npm",
        "@sourcegraph/scip-python",
    ),
    AnalyzerSpec(
        "scip-go",
        (Language.GO,),
        Provenance.SCIP_GO,
        "0.2.9",
        "scip-go-v0.2.9/scip-go",
        f"go install {SCIP_GO_MODULE}/cmd/scip-go@v0.2.9; needs Go >= 1.26",
    ),
    AnalyzerSpec(
        "rust-analyzer",
        (Language.RUST,),
        Provenance.RUST_ANALYZER_SCIP,
        "0.0.348",
        "rust-analyzer-0.0.348/bin/rust-analyzer",
        "rustup's rust-analyzer component, else cargo install ra_ap_rust-analyzer@0.0.348, a long first build",
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
    expected: str = ""
    """The version it should report: the pin, or what the install recorded for a toolchain's
    component ("" = the pin)."""

    @property
    def usable(self) -> bool:
        return bool(self.path) and not self.problem

    @property
    def expected_version(self) -> str:
        return self.expected or self.spec.pinned


def tools_cache() -> Path:
    explicit = os.environ.get("KIVGRAPH_TOOLS_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kivgraph" / "tools"


NPM_PACKAGE_DIR = Path(__file__).parent / "npm"
"""package.json + package-lock.json of the npm indexers: package data, the one copy (tools/ links here)."""


@cache
def npm_lock_digest() -> str:
    """Names the cache directory the lockfile is installed into: a new pin is a new directory."""
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        try:
            digest.update((NPM_PACKAGE_DIR / name).read_bytes())
        except OSError:  # a damaged install of kivgraph: nothing is found there, `analyzers install` says why
            digest.update(b"missing")
    return digest.hexdigest()[:16]


def npm_home() -> Path:
    """Where `npm ci` of the shipped lockfile goes: `<tools cache>/npm-<digest>`."""
    return tools_cache() / f"npm-{npm_lock_digest()}"


def cached_binary(spec: AnalyzerSpec) -> Path | None:
    """The pinned binary's place in the tools cache."""
    if spec.npm_package:
        return npm_home() / "node_modules" / ".bin" / spec.name
    return tools_cache() / spec.cache_binary if spec.cache_binary else None


def component_record(spec: AnalyzerSpec) -> Path:
    """Where the install records a toolchain's own component it chose (rust-analyzer from rustup)."""
    return tools_cache() / f"{spec.name}-component.json"


def recorded_component(spec: AnalyzerSpec) -> tuple[str, str] | None:
    """(path, version) of the recorded component, when a readable record exists."""
    try:
        loaded: object = json.loads(component_record(spec).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    record = cast(dict[str, object], loaded) if isinstance(loaded, dict) else {}
    path, version = record.get("path"), record.get("version")
    if not isinstance(path, str) or not isinstance(version, str) or not path:
        return None
    return path, version


def checkout_tools() -> Path:
    """`tools/` of the source checkout this package runs from (an editable install)."""
    return Path(__file__).resolve().parents[2] / "tools"


def candidates(spec: AnalyzerSpec) -> list[tuple[str, str, str]]:
    """(where, path, expected version — "" for the pin) triples in search order."""
    found: list[tuple[str, str, str]] = []
    explicit = os.environ.get(spec.env_var)
    if explicit:
        found.append((spec.env_var, explicit, ""))
    recorded = recorded_component(spec)
    if recorded is not None:
        found.append(("toolchain component", recorded[0], recorded[1]))
    cached = cached_binary(spec)
    if cached is not None:
        found.append(("tools cache", str(cached), ""))
    found.append(("tools/node_modules", str(checkout_tools() / "node_modules" / ".bin" / spec.name), ""))
    on_path = shutil.which(spec.name)
    if on_path:
        found.append(("PATH", on_path, ""))
    return found


def locate(spec: AnalyzerSpec, probe: bool = True) -> Located:
    """The first candidate that exists, with the version it reports.

    Without `probe` the binary is not asked its version (half a second for the node-based
    indexers): an index states the version of the tool that wrote it.
    """
    for where, path, expected in candidates(spec):
        if not os.path.isfile(path):
            if where == spec.env_var:
                return Located(spec, path, "", f"{spec.env_var} points at {path}, which does not exist")
            continue
        if not probe:
            usable = os.access(path, os.X_OK)
            problem = "" if usable else f"`{path}` is not executable; reinstall with {spec.install_hint}"
            return Located(spec, path, "", problem, expected)
        version, problem = probe_version(path)
        if problem:
            problem = f"{problem}; install a working one with {spec.install_hint}"
        return Located(spec, path, version, problem, expected)
    return Located(spec, "", "", f"not installed; install it with {spec.install_hint}")


def probe_version(path: str) -> tuple[str, str]:
    """(the version `path --version` reports, "") or ("", why it cannot be asked)."""
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


STARTING = threading.RLock()
"""Held while a tool starts, and by every fork of this process. Analyzers start from a thread while
the parse pool forks; a process forked while a child is starting inherits the pipes that report
its start and carry its output, and whoever waits for their end waits for the forked process to
exit — seconds, for a parse worker."""
if sys.platform != "win32":
    os.register_at_fork(before=STARTING.acquire, after_in_parent=STARTING.release, after_in_child=STARTING.release)


def run_tool(
    args: list[str], cwd: Path | None, timeout: float, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run an analyzer (or its toolchain) in the analyzer environment (plus `extra_env`), output
    captured as text.

    Raises subprocess.TimeoutExpired and OSError for the caller to turn into its own words.
    """
    with STARTING:
        process = subprocess.Popen(
            args,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            env={**analyzer_environment(), **(extra_env or {})},
        )
    with process:  # what subprocess.run does once the process has started
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except BaseException:
            process.kill()
            raise
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)
