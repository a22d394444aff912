"""Running the SCIP indexers over a tree: where each one runs, with what, and what became of it.

Indexers run where the indexed files are: in the working tree itself when it holds exactly the
indexed commit (that is where installed dependencies live), else — and always for Go, whose
`go mod download` writes go.sum — on the commit's tree written out to a scratch directory with
the working tree's `node_modules` linked in. Each runs per
project (tsconfig, go.mod, Cargo workspace, the Python tree) with a timeout and its stderr kept,
in the background while the syntax layer parses, and writes nothing into the tree (rust-analyzer's
build-script output goes to a scratch CARGO_TARGET_DIR). A crash, a timeout or an empty index
becomes an invisible scope, never a failed index.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from kivgraph.model import InvisibleScope, Language
from kivgraph.scip.analyzers import AnalyzerSpec, analyzer_for, locate, run_tool
from kivgraph.scip.index import ScipIndex, ScipIndexError, load_index

NEVER_IN_PLACE = frozenset({"scip-go"})
"""`go mod download` (what makes scip-go see dependencies) records checksums in go.sum: Go projects
are analysed on a copy, so the user's go.sum is never touched."""
ANALYZER_TIMEOUT_SECONDS = float(os.environ.get("KIVGRAPH_ANALYZER_TIMEOUT", "900"))
STDERR_TAIL = 2000


@dataclass(frozen=True, slots=True)
class Project:
    """One run of one indexer: the directory (repository-relative) it indexes."""

    spec: AnalyzerSpec
    root: str
    language: Language


@dataclass(frozen=True, slots=True)
class AnalyzerRun:
    project: Project
    index: ScipIndex | None
    seconds: float
    invisible: tuple[InvisibleScope, ...]
    """What this run could not see, with the reason and the stderr tail (empty when all went well)."""


def projects(paths: Iterable[str], languages: frozenset[Language]) -> list[Project]:
    """Where each indexer must run for the files of the tree."""
    paths = sorted(paths)
    found: list[Project] = []

    def topmost(manifest: str) -> list[str]:
        dirs = sorted({p.rpartition("/")[0] for p in paths if p.rpartition("/")[2] == manifest})
        dirs = [d for d in dirs if "node_modules" not in d.split("/")]
        return [d for d in dirs if not any(d != o and (o == "" or d.startswith(o + "/")) for o in dirs)]

    typescript = analyzer_for(Language.TYPESCRIPT)
    if typescript is not None and languages & {Language.TYPESCRIPT, Language.JAVASCRIPT}:
        found += [Project(typescript, d, Language.TYPESCRIPT) for d in topmost("tsconfig.json")]
    python = analyzer_for(Language.PYTHON)
    if python is not None and Language.PYTHON in languages:
        found.append(Project(python, "", Language.PYTHON))
    go = analyzer_for(Language.GO)
    if go is not None and Language.GO in languages:
        modules = sorted({p.rpartition("/")[0] for p in paths if p.rpartition("/")[2] == "go.mod"})
        found += [Project(go, d, Language.GO) for d in modules]
    rust = analyzer_for(Language.RUST)
    if rust is not None and Language.RUST in languages:
        found += [Project(rust, d, Language.RUST) for d in topmost("Cargo.toml")]
    return found


def materialize(files: Iterable[tuple[str, Callable[[], bytes]]], worktree: str | None, root: Path) -> Path:
    """Write the tree to `root`; link the working tree's node_modules into it."""
    root.mkdir(parents=True)
    for path, read in files:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(read())
    if worktree:
        for directory, names, _ in os.walk(worktree):
            names[:] = [n for n in names if n not in (".git",)]
            if "node_modules" in names:
                relative = os.path.relpath(directory, worktree)
                link = root / relative / "node_modules"
                if link.parent.is_dir() and not link.exists():
                    link.symlink_to(Path(directory) / "node_modules")
                names.remove("node_modules")
    return root


def command(project: Project, binary: str, output: Path, version: str) -> list[str]:
    name = project.spec.name
    if name == "scip-typescript":
        return [binary, "index", "--output", str(output)]
    if name == "scip-python":
        return [binary, "index", "--project-name", "repository", "--project-version", version or "0",
                "--output", str(output)]  # fmt: skip
    if name == "scip-go":
        return [binary, "index", "--module-root", ".", "-o", str(output)]
    return [binary, "scip", ".", "--output", str(output)]


ANALYZER_FAILURES = frozenset({"ANALYZER_UNAVAILABLE", "ANALYZER_TIMEOUT", "ANALYZER_CRASHED", "ANALYZER_EMPTY_INDEX"})
"""Invisible-scope reasons that mean a type checker that should have run did not: what
`kivgraph index --require-analyzers` refuses to store."""


def run_project(
    project: Project, tree: Path, outputs: Path, version: str, in_place: bool, origin: Path | None = None
) -> AnalyzerRun:
    """Run one indexer over `tree` (the working tree itself when `in_place`, else a copy of the
    commit; `origin` is then the working tree the copy stands for, if any)."""
    started = time.monotonic()
    where = project.root or "."

    def invisible(reason: str, detail: str) -> AnalyzerRun:
        scope = InvisibleScope(reason, project.language, where, project.root, f"{project.spec.name}: {detail}")
        return AnalyzerRun(project, None, time.monotonic() - started, (*warnings, scope))

    warnings: list[InvisibleScope] = []
    found = locate(project.spec, probe=False)
    if not found.usable:
        return invisible("ANALYZER_UNAVAILABLE", found.problem)
    cwd = tree / project.root
    if project.spec.name == "scip-go" and not in_place and origin is not None:
        anchor_replacements(cwd / "go.mod", origin / project.root)
    if project.spec.name == "scip-go":
        # scip-go quietly labels packages it cannot load as standard library; fetching the
        # module's dependencies first is what `go build` would do, and says what is missing.
        problem = _go_dependencies(cwd)
        if problem:
            warnings.append(InvisibleScope("MODULE_DEPENDENCIES_MISSING", project.language, where, project.root,
                                           f"go mod download: {problem}"))  # fmt: skip
    if project.spec.name == "scip-python" and not in_place and not (cwd / "pyrightconfig.json").exists():
        # scip-python reads the nearest pyrightconfig.json of any parent directory; an empty one
        # here keeps a stray config above the scratch directory from redirecting it.
        (cwd / "pyrightconfig.json").write_text("{}\n", encoding="utf-8")
    output = outputs / f"{project.spec.name}-{abs(hash(project.root))}.scip"
    try:
        # Build scripts and proc-macros rust-analyzer compiles go to a scratch target directory,
        # so even an in-place run leaves the tree exactly as it was.
        extra = {"CARGO_TARGET_DIR": str(outputs / "cargo-target")} if project.spec.name == "rust-analyzer" else None
        done = run_tool(command(project, found.path, output, version), cwd, ANALYZER_TIMEOUT_SECONDS, extra)
    except subprocess.TimeoutExpired:
        return invisible("ANALYZER_TIMEOUT", f"did not finish within {ANALYZER_TIMEOUT_SECONDS:g}s")
    except OSError as err:
        return invisible("ANALYZER_UNAVAILABLE", f"could not start ({err.strerror})")
    tail = (done.stderr or done.stdout)[-STDERR_TAIL:].strip()
    if done.returncode != 0 or not output.exists():
        return invisible("ANALYZER_CRASHED", f"exited with {done.returncode}: {tail}")
    try:
        index = load_index(output.read_bytes(), f"{project.spec.name} output for {where}")
    except ScipIndexError as err:
        return invisible("ANALYZER_CRASHED", str(err))
    finally:
        output.unlink(missing_ok=True)
    if not index.documents:
        return invisible("ANALYZER_EMPTY_INDEX", f"produced an index of no documents: {tail}")
    return AnalyzerRun(project, index, time.monotonic() - started, tuple(warnings))


LOCAL_REPLACEMENT = re.compile(r"(=>\s*)(\.{1,2}/[^\s]*|\.{1,2})(\s*$)", re.MULTILINE)


def anchor_replacements(go_mod: Path, original: Path) -> None:
    """In a copy's go.mod, point `replace … => ../sibling` at the sibling beside the original
    module: the copy lives elsewhere, and a relative path would lead nowhere."""
    try:
        text = go_mod.read_text(encoding="utf-8")
    except OSError:
        return

    def absolute(match: re.Match[str]) -> str:
        return f"{match.group(1)}{os.path.normpath(original / match.group(2))}{match.group(3)}"

    anchored = LOCAL_REPLACEMENT.sub(absolute, text)
    if anchored != text:
        go_mod.write_text(anchored, encoding="utf-8")


def _go_dependencies(module: Path) -> str:
    """ "" when every dependency of the module is available; else why not (first error line)."""
    try:
        done = run_tool(["go", "mod", "download"], module, ANALYZER_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    if done.returncode == 0:
        return ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return lines[0] if lines else f"exited with {done.returncode}"


def unconfigured(paths: Iterable[str], languages: frozenset[Language]) -> list[InvisibleScope]:
    """Languages present with no project an indexer could run on (TypeScript without a tsconfig)."""
    paths = list(paths)
    scopes: list[InvisibleScope] = []
    scripts = languages & {Language.TYPESCRIPT, Language.JAVASCRIPT}
    if scripts and not any(p.rpartition("/")[2] == "tsconfig.json" for p in paths):
        for language in sorted(scripts):
            scopes.append(InvisibleScope("PROJECT_NOT_CONFIGURED", language, ".", "",
                                         "no tsconfig.json: scip-typescript has no project to check"))  # fmt: skip
    return scopes


class Analysis:
    """The indexers of one tree, running in the background while the syntax layer parses.

    With `in_place` (a working tree that holds exactly the indexed files) they run there;
    otherwise the tree is written out here, in the caller's thread (git objects are read by one
    thread only). The indexers are separate processes, so a worker thread that waits on them
    leaves the interpreter free. `finish` waits, removes what was written, and returns the runs
    and the scopes no indexer could be run on at all.
    """

    def __init__(
        self,
        files: list[tuple[str, Callable[[], bytes]]],
        languages: frozenset[Language],
        worktree: str | None,
        version: str,
        in_place: bool = False,
    ) -> None:
        paths = [p for p, _ in files]
        self.left_out = unconfigured(paths, languages)
        wanted = projects(paths, languages)
        self.in_place = bool(in_place and worktree)
        self.scratch = Path(tempfile.mkdtemp(prefix="kivgraph-scip-")) if wanted else None
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kivgraph-analyzers")
        self.pending: list[Future[AnalyzerRun]] = []
        if self.scratch is None:
            return
        copy: Path | None = None
        for project in wanted:
            here = self.in_place and worktree is not None and project.spec.name not in NEVER_IN_PLACE
            if here and worktree is not None:
                tree = Path(worktree)
            else:
                copy = copy or materialize(files, worktree, self.scratch / "tree")
                tree = copy
            origin = Path(worktree) if worktree else None
            self.pending.append(self.pool.submit(run_project, project, tree, self.scratch, version, here, origin))

    def finish(self) -> tuple[list[AnalyzerRun], list[InvisibleScope]]:
        try:
            return [future.result() for future in self.pending], self.left_out
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)
            if self.scratch is not None:
                shutil.rmtree(self.scratch, ignore_errors=True)
