"""Installing the pinned analyzers that languages need into the tools cache, and the cache's key.

`npm ci` of the lockfile shipped in `scip/npm/`, `go install` of scip-go, rustup's rust-analyzer
component or else the crates.io build. Finding them afterwards is `scip/analyzers.py`. Nothing here
prints or exits: progress goes to a callback, and the outcome is data the CLI renders.
"""

import hashlib
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from kivgraph.errors import KivgraphError
from kivgraph.model import Language
from kivgraph.scip.analyzers import (
    ANALYZERS,
    NPM_PACKAGE_DIR,
    SCIP_GO_MODULE,
    AnalyzerSpec,
    analyzer_environment,
    cached_binary,
    component_record,
    npm_home,
    npm_lock_digest,
    probe_version,
    recorded_component,
    run_tool,
    tools_cache,
)

Say = Callable[[str], None]
"""Receives one progress line (no newline)."""

CACHE_LAYOUT = "1"
"""Part of the cache key: bumped when what lives where in the tools cache changes."""

NPM_TIMEOUT_SECONDS = 900
GO_TIMEOUT_SECONDS = 900
RUSTUP_TIMEOUT_SECONDS = 600
CARGO_TIMEOUT_SECONDS = 3 * 3600
HEARTBEAT_SECONDS = 60
RUSTC_MINIMUM_MINOR = 95
"""ra_ap_rust-analyzer 0.0.348 needs rustc >= 1.95 (and is the newest that builds on 1.95: 0.0.349
claims rust-version 1.95 but uses `std::assert_matches`, unstable there)."""


class Status(StrEnum):
    INSTALLED = "installed"
    ALREADY = "already"
    """Was in the tools cache (or recorded there) and answers with the expected version."""
    SKIPPED = "skipped"
    """Its toolchain is absent or too old; nothing was attempted."""
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    languages: tuple[Language, ...]
    status: Status
    version: str
    path: str
    source: str
    """How it was obtained: npm, go install, rustup, crates.io."""
    reason: str
    """Why it was skipped or failed; for rust-analyzer, which way it came and why."""

    @property
    def ok(self) -> bool:
        return self.status in (Status.INSTALLED, Status.ALREADY)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "languages": [lang.value for lang in self.languages], "status": self.status.value,
            "version": self.version, "path": self.path, "source": self.source, "reason": self.reason,
        }  # fmt: skip


def analyzers_for(languages: Iterable[Language]) -> tuple[AnalyzerSpec, ...]:
    """The analyzers that make `languages` exact, in ANALYZERS order (Dart has none)."""
    wanted = set(languages)
    return tuple(spec for spec in ANALYZERS if wanted & set(spec.languages))


def cache_key(languages: Iterable[Language]) -> dict[str, Any]:
    """A key for restoring the tools cache (actions/cache): the cache layout, the pins of the
    analyzers `languages` need (the npm lockfile's digest, not only the two top-level versions)
    and the platform, whose binaries the cache holds; and the cache's path."""
    pins = {
        spec.name: f"{spec.pinned} npm-{npm_lock_digest()}" if spec.npm_package else spec.pinned
        for spec in analyzers_for(languages)
    }
    digest = hashlib.sha256(json.dumps({"layout": CACHE_LAYOUT, "pins": pins}, sort_keys=True).encode("utf-8"))
    system = f"{platform.system()}-{platform.machine()}".lower()
    path = tools_cache().absolute()
    return {"key": f"kivgraph-tools-{system}-{digest.hexdigest()[:16]}", "path": str(path), "analyzers": pins}


def install(languages: Iterable[Language], project: str, say: Say) -> tuple[Outcome, ...]:
    """Install what `languages` need, each analyzer independently of the others' failures.

    `project` is where rustup is asked, so a `rust-toolchain.toml` there picks the toolchain
    whose component is added.
    """
    specs = analyzers_for(languages)
    if not specs:
        return ()
    cache = tools_cache()
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise KivgraphError(
            f"cannot create the tools cache {cache} ({err.strerror}); set KIVGRAPH_TOOLS_CACHE to a writable directory."
        ) from err
    outcomes: list[Outcome] = []
    npm = [spec for spec in specs if spec.npm_package]
    if npm:
        outcomes.extend(_install_npm(npm, say))
    for spec in specs:
        if spec.name == "scip-go":
            outcomes.append(_install_scip_go(spec, say))
        elif spec.name == "rust-analyzer":
            outcomes.append(_install_rust_analyzer(spec, Path(project), say))
    order = [spec.name for spec in ANALYZERS]
    return tuple(sorted(outcomes, key=lambda outcome: order.index(outcome.name)))


def _outcome(
    spec: AnalyzerSpec, status: Status, source: str, reason: str = "", version: str = "", path: str = ""
) -> Outcome:
    return Outcome(spec.name, spec.languages, status, version, path, source, reason)


def _answers(path: Path | str | None, version: str) -> bool:
    """`path` runs and reports `version`."""
    if path is None or not os.path.isfile(path):
        return False
    reported, problem = probe_version(str(path))
    return not problem and reported == version


def _verified(spec: AnalyzerSpec, binary: Path, source: str, status: Status, reason: str = "") -> Outcome:
    reported, problem = probe_version(str(binary))
    if problem:
        return _outcome(spec, Status.FAILED, source, f"installed, but {problem}")
    if reported != spec.pinned:
        reason = f"{binary} reports version {reported}, not the pinned {spec.pinned}"
        return _outcome(spec, Status.FAILED, source, reason)
    return _outcome(spec, status, source, reason, reported, str(binary))


def _gist(text: str) -> str:
    """The line of a tool's output that says what went wrong: the first error line, else the last."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    gist = (errors or lines or ["no output"])[0 if errors else -1]
    return gist if len(gist) <= 300 else gist[:297] + "..."


def _run(args: list[str], cwd: Path | None, timeout: float, extra_env: dict[str, str] | None = None) -> str:
    """Run a step; "" when it worked, else why not, in a few words."""
    try:
        done = run_tool(args, cwd, timeout, extra_env)
    except subprocess.TimeoutExpired:
        return f"did not finish within {timeout:g}s"
    except OSError as err:
        return f"could not start ({err.strerror})"
    if done.returncode != 0:
        return f"exited with {done.returncode}: {_gist(done.stderr + chr(10) + done.stdout)}"
    return ""


def _scratch(final: Path) -> Path:
    """An empty directory beside `final`, renamed onto it only when the install worked, so an
    interrupted or failed install never leaves something that looks installed."""
    scratch = Path(tempfile.mkdtemp(prefix=final.name + ".partial-", dir=final.parent))
    umask = os.umask(0o022)
    os.umask(umask)
    scratch.chmod(0o777 & ~umask)  # mkdtemp's 0700 would make the tools unusable by anyone else
    return scratch


def _replace(scratch: Path, final: Path) -> None:
    if final.is_symlink() or final.is_file():
        final.unlink()
    elif final.exists():
        shutil.rmtree(final)
    os.replace(scratch, final)


def _install_npm(specs: list[AnalyzerSpec], say: Say) -> list[Outcome]:
    """scip-typescript and scip-python come from one lockfile: one `npm ci` serves both."""
    home = npm_home()
    if all(_answers(cached_binary(spec), spec.pinned) for spec in specs):
        return [_outcome(spec, Status.ALREADY, "npm", "", spec.pinned, str(cached_binary(spec))) for spec in specs]
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        names = " and ".join(missing)
        reason = f"{names} {'is' if len(missing) == 1 else 'are'} not on PATH; install Node.js >= 18 with npm"
        return [_outcome(spec, Status.SKIPPED, "npm", reason) for spec in specs]
    pinned = ", ".join(f"{spec.name} {spec.pinned}" for spec in ANALYZERS if spec.npm_package)
    say(f"npm ci of the pinned lockfile ({pinned}) into {home} (about 10 s)")
    scratch = _scratch(home)
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(NPM_PACKAGE_DIR / name, scratch / name)
        problem = _run(["npm", "ci", "--no-audit", "--no-fund"], scratch, NPM_TIMEOUT_SECONDS)
        if problem:
            return [_outcome(spec, Status.FAILED, "npm", f"npm ci {problem}") for spec in specs]
        _replace(scratch, home)
    except OSError as err:
        return [_outcome(spec, Status.FAILED, "npm", f"cannot write {home}: {err}") for spec in specs]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return [_verified(spec, home / "node_modules" / ".bin" / spec.name, "npm", Status.INSTALLED) for spec in specs]


def _install_scip_go(spec: AnalyzerSpec, say: Say) -> Outcome:
    binary = cached_binary(spec)
    assert binary is not None  # scip-go has a fixed place in the cache
    if _answers(binary, spec.pinned):
        return _outcome(spec, Status.ALREADY, "go install", "", spec.pinned, str(binary))
    if shutil.which("go") is None:
        return _outcome(spec, Status.SKIPPED, "go install", "go is not on PATH; scip-go needs Go >= 1.26")
    package = f"{SCIP_GO_MODULE}/cmd/scip-go@v{spec.pinned}"
    say(f"go install {package} into {binary.parent} (about 20 s cold)")
    binary.parent.parent.mkdir(parents=True, exist_ok=True)
    scratch = _scratch(binary.parent)
    try:
        # The run environment leaves GOFLAGS out, so a user-wide setting (-mod=vendor) cannot break `pkg@version`.
        problem = _run(["go", "install", package], tools_cache(), GO_TIMEOUT_SECONDS, {"GOBIN": str(scratch)})
        if problem:
            return _outcome(spec, Status.FAILED, "go install", f"go install {package} {problem} (needs Go >= 1.26)")
        _replace(scratch, binary.parent)
    except OSError as err:
        return _outcome(spec, Status.FAILED, "go install", f"cannot write {binary.parent}: {err}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return _verified(spec, binary, "go install", Status.INSTALLED)


def _install_rust_analyzer(spec: AnalyzerSpec, project: Path, say: Say) -> Outcome:
    """The toolchain's own component when rustup provides one that supports `scip` (seconds on
    GitHub's runners), else the crates.io build of the pin. Says in one line which, and why."""
    recorded = recorded_component(spec)
    if recorded is not None and _answers(recorded[0], recorded[1]):
        path, version = recorded
        say(f"rust-analyzer: the toolchain's component {version}, recorded by an earlier install, still answers")
        return _outcome(spec, Status.ALREADY, "rustup", "the toolchain's own component", version, path)
    component, why = _rustup_component(project)
    if component is not None:
        path, version = component
        record = {"path": path, "version": version, "source": "rustup component add rust-analyzer"}
        component_record(spec).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        say(f"rust-analyzer: the toolchain's component {version} (`rustup component add rust-analyzer` worked "
            "and it supports `scip`)")  # fmt: skip
        _rust_src_note(project, say)
        return _outcome(spec, Status.INSTALLED, "rustup", "the toolchain's own component", version, path)
    component_record(spec).unlink(missing_ok=True)
    outcome = _crate_build(spec, why, say)
    if outcome.ok:
        _rust_src_note(project, say)
    return outcome


def _rustup_component(project: Path) -> tuple[tuple[str, str] | None, str]:
    """((path, version) of the active toolchain's rust-analyzer, "") or (None, why not)."""
    if shutil.which("rustup") is None:
        return None, "rustup is not on PATH"
    cwd = project if project.is_dir() else None
    problem = _run(["rustup", "component", "add", "rust-analyzer"], cwd, RUSTUP_TIMEOUT_SECONDS)
    if problem:
        return None, f"`rustup component add rust-analyzer` {problem}"
    try:
        done = run_tool(["rustup", "which", "rust-analyzer"], cwd, RUSTUP_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as err:
        return None, f"`rustup which rust-analyzer` failed ({err})"
    path = done.stdout.strip().splitlines()[-1].strip() if done.returncode == 0 and done.stdout.strip() else ""
    if not path or not os.path.isfile(path):
        return None, f"`rustup which rust-analyzer` names no binary ({_gist(done.stderr + done.stdout)})"
    version, problem = probe_version(path)
    if problem:
        return None, f"the toolchain's rust-analyzer does not run: {problem}"
    try:
        helped = run_tool([path, "scip", "--help"], cwd, RUSTUP_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as err:
        return None, f"`{path} scip --help` failed ({err})"
    if helped.returncode != 0 or "rust-analyzer scip" not in helped.stdout + helped.stderr:
        return None, f"the toolchain's rust-analyzer {version} has no `scip` command"
    return (path, version), ""


def _crate_build(spec: AnalyzerSpec, why: str, say: Say) -> Outcome:
    """`cargo install --locked ra_ap_rust-analyzer` of the pin: rust-analyzer is published weekly to
    crates.io as `ra_ap_rust-analyzer`, whose package has a `[[bin]] rust-analyzer` target and a
    Cargo.lock, so the build is reproducible from crates.io alone (where neither rustup's servers
    nor GitHub's release binaries are reachable). About 20 minutes on 2 cores; a 49 MB binary."""
    binary = cached_binary(spec)
    assert binary is not None  # rust-analyzer has a fixed place in the cache
    home = binary.parent.parent
    if _answers(binary, spec.pinned):
        say(f"rust-analyzer: the cached crates.io build {spec.pinned}, because {why}")
        return _outcome(spec, Status.ALREADY, "crates.io", f"the crates.io build, because {why}", spec.pinned,
                        str(binary))  # fmt: skip
    if shutil.which("cargo") is None:
        reason = f"{why}, and cargo is not on PATH for the crates.io build (install Rust >= 1.95 with rustup)"
        return _outcome(spec, Status.SKIPPED, "crates.io", reason)
    rustc = _rustc_version()
    if _minor(rustc) < RUSTC_MINIMUM_MINOR:
        reason = f"{why}, and the crates.io build of {spec.pinned} needs rustc >= 1.95 (found {rustc or 'none'})"
        return _outcome(spec, Status.SKIPPED, "crates.io", reason)
    log = home.with_name(home.name + ".log")
    say(f"rust-analyzer: building the crates.io release {spec.pinned} into {home} (about 20 min on 2 cores; "
        f"cargo's output goes to {log}), because {why}")  # fmt: skip
    scratch = _scratch(home)
    try:
        args = ["cargo", "install", "--locked", "ra_ap_rust-analyzer", "--version", spec.pinned, "--root", str(scratch)]
        # CFG_RELEASE is what `rust-analyzer --version` reports; the cache directory keeps cargo away
        # from any project's .cargo/config.toml.
        problem = _run_logged(args, tools_cache(), {"CFG_RELEASE": spec.pinned}, log, say)
        if problem:
            return _outcome(spec, Status.FAILED, "crates.io", f"{why}; then cargo install {problem} (see {log})")
        _replace(scratch, home)
    except OSError as err:
        return _outcome(spec, Status.FAILED, "crates.io", f"cannot write {home}: {err}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return _verified(spec, binary, "crates.io", Status.INSTALLED, f"the crates.io build, because {why}")


def _run_logged(args: list[str], cwd: Path, extra_env: dict[str, str], log: Path, say: Say) -> str:
    """A long step whose output goes to `log`, with a line on `say` every minute; "" when it worked."""
    started = time.monotonic()
    try:
        with log.open("w", encoding="utf-8") as sink:
            child = subprocess.Popen(args, cwd=cwd, stdout=sink, stderr=subprocess.STDOUT,
                                     env={**analyzer_environment(), **extra_env})  # fmt: skip
            while True:
                try:
                    code = child.wait(HEARTBEAT_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    elapsed = time.monotonic() - started
                    if elapsed > CARGO_TIMEOUT_SECONDS:
                        child.kill()
                        child.wait()
                        return f"did not finish within {CARGO_TIMEOUT_SECONDS}s"
                    say(f"  still building ({elapsed / 60:.0f} min)")
    except OSError as err:
        return f"could not start ({err.strerror})"
    if code != 0:
        return f"exited with {code}: {_gist(log.read_text(encoding='utf-8', errors='replace')[-20000:])}"
    return ""


def _rustc_version() -> str:
    try:
        done = run_tool(["rustc", "--version"], None, RUSTUP_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _minor(rustc: str) -> int:
    """`rustc 1.95.0 (…)` → 95; 0 when unreadable."""
    words = rustc.split()
    parts = words[1].split(".") if len(words) > 1 else []
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def _rust_src_note(project: Path, say: Say) -> None:
    """Without rust-src, std and everything inside std macros (println!, vec!, …) go unresolved.
    `rust-analyzer scip` then runs `rustup component add rust-src` itself, which needs rustup's
    servers; where that fails it indexes the rest anyway."""
    try:
        done = run_tool(["rustc", "--print", "sysroot"], project if project.is_dir() else None, 60)
    except (OSError, subprocess.TimeoutExpired):
        return
    sysroot = done.stdout.strip()
    if done.returncode == 0 and sysroot and not (Path(sysroot) / "lib/rustlib/src/rust/library/core").is_dir():
        say("note: rust-src is not installed; indexes will lack std (try: rustup component add rust-src)")
