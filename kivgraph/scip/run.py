"""Running the SCIP indexers over a tree, one per project (kivgraph/scip/projects.py): in which
directory each runs, with what, and what became of it.

Indexers run where the indexed files are: in the working tree itself when it holds exactly the
indexed commit (that is where installed dependencies live), else — and always for Go, whose
`go mod download` writes go.sum — on the commit's tree written out to a scratch directory (in memory
when there is room) with the working tree's `node_modules` linked in (for Go modules alone, only
what the go command reads). Each runs per project (tsconfig, go.mod, Cargo workspace, Python
project root: scip-python at the top of the tree, through a view of its own, `python_view`) with a
timeout and its stderr kept, in the background while the syntax layer parses, and writes nothing
into the tree (rust-analyzer's build-script output goes to a scratch
CARGO_TARGET_DIR). A crash, a timeout or an empty index becomes an invisible scope, never a
failed index. Go runs under the go.work that governs the module, offline once dependencies are
fetched, with -trimpath (so the build cache serves every copy); each package `go list` could not
load is an invisible scope, and the indexes of a tree's modules are merged so uses across them
are exact.
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import cast

from kivgraph.languages import path_prefixes
from kivgraph.languages.go.modules import UNDATED_GO_VERSION, dated, go_mod_token, go_version, local_replacements
from kivgraph.languages.go.toolchain import read_listing, read_requirements, read_workspace, workspace_text
from kivgraph.languages.python.modules import PYTHON_SUFFIXES
from kivgraph.languages.typescript.manifests import json_object, load_json
from kivgraph.model import InvisibleScope, Language
from kivgraph.scip.analyzers import locate, run_tool
from kivgraph.scip.go_names import go_versions, member, versioned
from kivgraph.scip.index import Document, Occurrence, Relationship, ScipIndex, ScipIndexError, SymbolInfo, load_index
from kivgraph.scip.ingest import DEFINITION, LOCALS_FOLLOWED
from kivgraph.scip.projects import Project, projects, unconfigured

NEVER_IN_PLACE = frozenset({"scip-go"})
"""`go mod download` (what makes scip-go see dependencies) records checksums in go.sum: Go projects
are analysed on a copy, so the user's go.sum is never touched."""
ANALYZER_TIMEOUT_SECONDS = float(os.environ.get("KIVGRAPH_ANALYZER_TIMEOUT", "900"))
STDERR_TAIL = 2000
MEMORY_FILE_SYSTEM = "/dev/shm"
MEMORY_HEADROOM = 4
MEMORY_COPY_BYTES = 512 << 20
"""A larger copy goes to disk: in memory it would take what the type checkers need (rust-analyzer
took 3.4 GB on the Rust standard library), and its files' creation is a small part of its cost."""
ANALYZER_WORKERS = 2
"""Type checkers running at once. One alone leaves a core idle much of the time (`go list`, loading,
writing its index): on a tree of seven Go modules, two at a time took the run from ~10.9 s to
~8.1 s, and on the reference repository (Go, six Cargo workspaces, TypeScript projects) from ~50 s
to ~38 s — rust-analyzer and scip-typescript beside each other too (running those alone was no
faster than one after another). More would multiply their memory (scip-typescript takes gigabytes
on a large project)."""


@dataclass(frozen=True, slots=True)
class AnalyzerRun:
    project: Project
    index: ScipIndex | None
    seconds: float
    invisible: tuple[InvisibleScope, ...]
    """What this run could not see, with the reason and the stderr tail (empty when all went well)."""
    local_modules: tuple[tuple[str, str], ...] = ()
    """Go: (module path, tree-relative directory) of each module its packages were loaded from
    inside the tree — itself, and siblings reached through `replace` or go.work."""


GO_MANIFESTS = frozenset({"go.mod", "go.sum", "go.work", "go.work.sum"})
GO_EMBED = re.compile(rb"^//go:embed\s", re.MULTILINE)


def copied_files(
    files: Iterable[tuple[str, Callable[[], bytes]]], projects: Iterable[Project]
) -> list[tuple[str, bytes]]:
    """What of the tree the indexers of `projects` read, when they run on a copy: every file,
    unless they are all Go modules, which read what `go_reads` says. Creating a file costs a
    fraction of a millisecond on a CI disk, and the analyzers wait for the copy: a corpus of 1,900
    files held every Go module of a shard back by ~3 s."""
    files = list(files)
    if any(p.spec.name != "scip-go" for p in projects):
        return [(path, read()) for path, read in files]
    sources = {path: read() for path, read in files if path.endswith(".go")}  # read once: embeds, then the copy
    reads = go_reads({path: (lambda data=sources[path]: data) if path in sources else read for path, read in files})
    return [(path, sources[path] if path in sources else read()) for path, read in files if reads(path)]


GO_BUILD_SUFFIXES = (".go", ".c", ".cc", ".cxx", ".cpp", ".m", ".h", ".hh", ".hpp", ".hxx", ".f", ".F", ".for",
                     ".f90", ".s", ".S", ".sx", ".swig", ".swigcxx", ".syso")  # fmt: skip
"""The files of a package directory the go command builds from (go/build's list)."""


def go_reads(files: dict[str, Callable[[], bytes]]) -> Callable[[str], bool]:
    """Whether the go command reads a path of the tree `files` (path → its bytes): a source of a
    package directory (Go, cgo, assembly, .syso), what a `//go:embed` may name in or beneath an
    embedding package, the manifests and vendor/modules.txt — not a fuzz corpus, a testdata tree,
    the docs or the CI's configuration. A path the tree no longer holds is judged by where it was
    (a source beside Go code that is still there was read)."""
    packages: dict[str, list[str]] = {}
    for path in files:
        if path.endswith(".go"):
            packages.setdefault(path.rpartition("/")[0], []).append(path)
    embedding: dict[str, bool] = {}

    def embeds(directory: str) -> bool:
        if directory not in embedding:
            embedding[directory] = any(GO_EMBED.search(files[p]()) for p in packages.get(directory, ()))
        return embedding[directory]

    def reads(path: str) -> bool:
        directory, _, name = path.rpartition("/")
        if name in GO_MANIFESTS or (name == "modules.txt" and directory.rpartition("/")[2] == "vendor"):
            return True
        if directory in packages and name.endswith(GO_BUILD_SUFFIXES):
            return True
        while True:  # an embedding package here or above (an embed pattern never climbs with ..)
            if embeds(directory):
                return True
            if not directory:
                return False
            directory = directory.rpartition("/")[0]

    return reads


def memory_directory(size: int) -> Path | None:
    """A new directory for a copy of `size` bytes on a file system in memory (Linux's
    MEMORY_FILE_SYSTEM), when there is one with room for it MEMORY_HEADROOM times over, it is at
    most MEMORY_COPY_BYTES and no temporary directory was chosen (TMPDIR, TEMP, TMP); else None,
    for the scratch directory.

    The copy is written before any indexer starts, and creating a file took ~0.6 ms on the disk
    of the machine kivgraph is developed on, ~0.02 ms in memory: the copy of the monorepo bench's
    20 Go modules, 1.1–1.4 s → 0.05 s. Only the copy goes there: indexes and rust-analyzer's build
    output stay in the scratch."""
    if size > MEMORY_COPY_BYTES or any(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")):
        return None
    try:
        room = os.statvfs(MEMORY_FILE_SYSTEM)
        if room.f_bavail * room.f_frsize < MEMORY_HEADROOM * size + (64 << 20):
            return None
        return Path(tempfile.mkdtemp(prefix="kivgraph-tree-", dir=MEMORY_FILE_SYSTEM))
    except OSError:
        return None


def materialize(files: Iterable[tuple[str, bytes]], worktree: str | None, root: Path,
                go_modules: Iterable[str] = ()) -> Path:  # fmt: skip
    """Write the tree to `root`; link the working tree's node_modules into it, and anchor the
    `go_modules`' replacements that lead out of the tree at the working tree (before any
    indexer runs: one module's go command reads the go.mod of a sibling it replaces)."""
    root.mkdir(parents=True)
    for path, data in files:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if worktree:
        for directory, names, _ in os.walk(worktree):
            names[:] = [n for n in names if n not in (".git",)]
            if "node_modules" in names:
                relative = os.path.relpath(directory, worktree)
                link = root / relative / "node_modules"
                if link.parent.is_dir() and not link.exists():
                    link.symlink_to(Path(directory) / "node_modules")
                names.remove("node_modules")
        for module in go_modules:
            anchor_replacements(root / module / "go.mod", Path(worktree) / module, root)
    return root


PROJECT_NAME = "repository"
"""The package scip-python names the tree's own modules by."""
PROJECT_VERSION = "0"
"""The version scip-python gives the tree's own package: the same at every commit, so the rows of a
file that did not change do not change either (kivgraph/reuse.py keeps them)."""


def command(project: Project, binary: str, output: Path, go: str = UNDATED_GO_VERSION) -> list[str]:
    """The indexer's command line (`go`: a Go module's version, from its go.mod)."""
    name = project.spec.name
    if name == "scip-typescript":
        return [binary, "index", "--output", str(output)]
    if name == "scip-python":
        return [binary, "index", "--project-name", PROJECT_NAME, "--project-version", PROJECT_VERSION,
                "--environment", ".kivgraph-environment.json", "--output", str(output)]  # fmt: skip
    if name == "scip-go":
        # scip-go names the standard library by the module's go version, which it asks `go list`
        # for (none, for a go.mod without a go line; the toolchain's when that fails): stated.
        return [binary, "index", "--module-root", ".", "--go-version", f"go{go}", "-o", str(output)]
    return [binary, "scip", ".", "--output", str(output)]


def run_project(
    project: Project, tree: Path, outputs: Path, in_place: bool, origin: Path | None = None,
    shared: "Shared | None" = None,
) -> AnalyzerRun:  # fmt: skip
    """Run one indexer over `tree` (the working tree itself when `in_place`, else a copy of the
    commit; `origin` is then the working tree the copy stands for, if any). `shared`: what the
    runs over the tree share.

    What it could not see names paths as the tree does (`mods/go.mod`, not the scratch copy's
    absolute path): a generation is the same whichever directory the indexer ran in."""
    run = _run_project(project, tree, outputs, in_place, origin, shared or Shared())
    roots: set[str] = {str(tree), str(outputs)} | ({str(origin)} if origin is not None else set())
    places = sorted(roots, key=len, reverse=True)  # a scratch tree inside the scratch directory first

    def scrubbed(detail: str) -> str:
        for place in places:
            detail = detail.replace(place + "/", "").replace(place, ".")
        return detail

    invisible = tuple(replace(scope, detail=scrubbed(scope.detail)) for scope in run.invisible)
    return run if invisible == run.invisible else replace(run, invisible=invisible)


def _run_project(project: Project, tree: Path, outputs: Path, in_place: bool, origin: Path | None,
                 shared: "Shared") -> AnalyzerRun:  # fmt: skip
    started = time.monotonic()
    where = project.root or "."
    found = locate(project.spec, probe=False)
    if not found.usable:
        return _blind(project, started, (), "ANALYZER_UNAVAILABLE", found.problem)
    cwd = tree / project.root
    if project.spec.name != "scip-go":
        extra: dict[str, str] | None = None
        if project.spec.name == "rust-analyzer":
            # Build scripts and proc-macros rust-analyzer compiles go to a scratch target directory,
            # so even an in-place run leaves the tree exactly as it was.
            extra = {"CARGO_TARGET_DIR": str(outputs / "cargo-target")}
        keep: Callable[[str], bool] | None = None
        if project.spec.name == "scip-python":
            cwd, keep = python_view(project, tree, outputs, shared), project.owns
        return _analyze(project, found.path, cwd, outputs, extra, started, (), keep=keep)
    workspace = go_workspace(cwd, tree, None if in_place else origin, project.root, outputs)
    go = {"GOWORK": workspace, "GOFLAGS": shared.go_flags()}
    # scip-go quietly labels packages it cannot load as standard library; fetching the
    # module's dependencies first is what `go build` would do, and says what is missing.
    scratch = outputs / f"go-mod-{abs(hash(project.root))}"
    problem = "" if _vendored(cwd, go) else _go_dependencies(cwd, go, None if workspace != "off" else scratch)
    warnings = (
        (InvisibleScope("MODULE_DEPENDENCIES_MISSING", project.language, where, project.root,
                        f"go mod download: {problem}"),) if problem else ()
    )  # fmt: skip
    # From here on nothing is fetched: what is not in the module cache now is missing. `go list`
    # reads what scip-go reads and writes nothing, so the two run side by side.
    extra = {**go, "GOPROXY": "off"}
    with ThreadPoolExecutor(1, thread_name_prefix="kivgraph-go-list") as beside:
        listing = beside.submit(_go_packages, project, cwd, tree, extra)
        version = go_version((cwd / "go.mod").read_text(encoding="utf-8", errors="replace"))
        run = _analyze(project, found.path, cwd, outputs, extra, started, warnings, version)
        loaded, local = listing.result()
    if run.index is None:
        return run
    # With dependencies missing, the module-wide scope already covers every package.
    return replace(run, invisible=(*run.invisible, *(() if problem else loaded)), local_modules=local)


def _analyze(project: Project, executable: str, cwd: Path, outputs: Path, extra: dict[str, str] | None,
             started: float, warnings: tuple[InvisibleScope, ...], go: str = UNDATED_GO_VERSION,
             keep: Callable[[str], bool] | None = None) -> AnalyzerRun:  # fmt: skip
    """The analyzer's run in `cwd` and its index read back, or the blind spot it leaves; `keep`: the
    documents (by path) the run speaks for, when its index also holds others."""
    where = project.root or "."
    output = outputs / f"{project.spec.name}-{abs(hash(project.root))}.scip"
    try:
        done = run_tool(command(project, executable, output, go), cwd, ANALYZER_TIMEOUT_SECONDS, extra)
    except subprocess.TimeoutExpired:
        return _blind(project, started, warnings, "ANALYZER_TIMEOUT",
                      f"did not finish within {ANALYZER_TIMEOUT_SECONDS:g}s")  # fmt: skip
    except OSError as err:
        return _blind(project, started, warnings, "ANALYZER_UNAVAILABLE", f"could not start ({err.strerror})")
    tail = (done.stderr or done.stdout)[-STDERR_TAIL:].strip()
    if done.returncode != 0 or not output.exists():
        return _blind(project, started, warnings, "ANALYZER_CRASHED", f"exited with {done.returncode}: {tail}")
    keep_locals = project.spec.provenance in LOCALS_FOLLOWED
    try:
        written = output.read_bytes()
        index = load_index(written, f"{project.spec.name} output for {where}", keep_locals)
    except ScipIndexError as err:
        return _blind(project, started, warnings, "ANALYZER_CRASHED", str(err))
    finally:
        output.unlink(missing_ok=True)
    if keep is not None:
        index = replace(index, documents=tuple(d for d in index.documents if keep(d.path)))
    if not index.documents:
        return _blind(project, started, warnings, "ANALYZER_EMPTY_INDEX", f"produced an index of no documents: {tail}")
    return AnalyzerRun(project, index, time.monotonic() - started, warnings)


PYRIGHT_EXCLUDES = ("**/node_modules", "**/__pycache__", "**/.*")
"""What pyright leaves out of a project when its configuration names nothing to exclude."""


def python_view(project: Project, tree: Path, scratch: Path, shared: "Shared") -> Path:
    """Where scip-python runs for a Python project: a directory holding, by links, the project's
    root of `tree` and nothing else (the projects nested in it left out), so that each path is the
    tree's and scip-python walks the project's own files alone — it walks every file under where it
    runs that a file it walks imports: opentelemetry-python's 29 projects, each walking again the
    modules it imports from the others, took 263 s where one run over the tree took 48. The other
    projects' modules are found where they are, on its search path (Project.search, the same for
    every project, so that a module has one name whichever project's index names it), and named as
    the tree's own package by the environment it is given (its entry beside the installed
    distributions, Shared). A pyrightconfig.json of its own: the tree's, if it has one, with
    those paths. Nothing is written into the tree."""
    view = Path(tempfile.mkdtemp(prefix="python-", dir=scratch))
    _link_beside(tree, view, project.root, set(project.nested), shared.python_places)
    own = tree / "pyrightconfig.json"
    config = json_object(load_json(own.read_text(encoding="utf-8", errors="replace"))) if own.is_file() else None
    config = dict(config or {})
    for key in ("venvPath", "stubPath", "typeshedPath"):  # places of the tree, wherever the view is
        if isinstance(value := config.get(key), str):
            config[key] = str(tree / value)
    excluded, extra = config.get("exclude"), config.get("extraPaths")
    config["exclude"] = [*(excluded if isinstance(excluded, list) else PYRIGHT_EXCLUDES), *project.nested]
    # A place inside the project is reached in the view, any other in the tree itself.
    given = cast(list[object], extra) if isinstance(extra, list) else []
    places = [*(e for e in given if isinstance(e, str)), *project.search]
    inside = [p for p in places if project.owns(os.path.normpath(p) + "/")]
    config["extraPaths"] = [*inside, *(str(tree / p) for p in places if p not in inside), str(tree)]
    config["include"] = [project.root or "."]
    (view / "pyrightconfig.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
    # The tree's entry first: scip-python passes over a match with the first entry and goes on to
    # the next that matches, so a module an installed distribution also has is named by that, as
    # scip-python names it when it reads the environment itself, whatever the order pip lists.
    modules = _tree_modules(project, shared.python_files)
    tree_entry = {"name": PROJECT_NAME, "version": PROJECT_VERSION, "files": modules}
    environment = [tree_entry, *shared.installed()]
    (view / ".kivgraph-environment.json").write_text(json.dumps(environment), encoding="utf-8")
    return view


def _link_beside(tree: Path, view: Path, root: str, left_out: set[str], needed: frozenset[str],
                 at: str = "") -> None:  # fmt: skip
    """Link into `view` what of `tree` lies under `root`, less the directories `left_out` (all
    repository-relative), of the entries `needed` (that hold the tree's Python files: a working
    tree's virtualenv, build output or node_modules beside them is never walked): `at` is the
    directory being mirrored."""
    for entry in sorted((tree / at).iterdir()) if (tree / at).is_dir() else ():
        path = f"{at}/{entry.name}" if at else entry.name
        if at == "" and entry.name == "pyrightconfig.json" or path in left_out or path not in needed:
            continue
        leads_in = root.startswith(path + "/")
        holds_left_out = any(o.startswith(path + "/") for o in left_out)
        within = not root or path == root or path.startswith(root + "/")
        if (leads_in or (within and holds_left_out)) and entry.is_dir() and not entry.is_symlink():
            (view / path).mkdir()
            _link_beside(tree, view, root, left_out, needed, path)
        elif within:
            (view / path).symlink_to(entry)


def _tree_modules(project: Project, python_files: Iterable[str]) -> list[str]:
    """The tree's Python files outside the project, as a distribution lists its files: relative to
    each place a module is found that holds them (the top of the tree, each project's search path)."""
    bases = {"", *project.search}
    found: list[str] = []
    for path in python_files:
        if project.owns(path):
            continue
        directory = path
        while directory:
            directory = directory.rpartition("/")[0]
            if directory in bases:
                found.append(path[len(directory) + 1 :] if directory else path)
    return found


@dataclass
class Shared:
    """What the runs over one tree share, each read once for them all when first asked for: the
    tree's Python files (and the places a project's view links), the distributions installed for
    the Python scip-python would ask, and the GOFLAGS of its Go runs (`go env` takes ~20 ms, and
    two runs start at once)."""

    python_files: tuple[str, ...] = ()
    _installed: tuple[dict[str, object], ...] | None = None
    _go_flags: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _go_lock: threading.Lock = field(default_factory=threading.Lock)

    def installed(self) -> tuple[dict[str, object], ...]:
        with self._lock:
            if self._installed is None:
                self._installed = site_packages()
            return self._installed

    @cached_property
    def python_places(self) -> frozenset[str]:
        """The tree's Python files and every directory above one: what a project's view links."""
        return frozenset(path for file in self.python_files for path in path_prefixes(file))

    def go_flags(self) -> str:
        with self._go_lock:  # not behind the distributions, which take a second or more to list
            if self._go_flags is None:
                self._go_flags = go_flags()
            return self._go_flags


def site_packages() -> tuple[dict[str, object], ...]:
    """The distributions installed for the Python scip-python would ask (python3, else python, on
    PATH), each with its Python files, as scip-python reads them itself when given no environment:
    so that a project's run can be given one that also names the tree's modules. None when that
    Python cannot say: its packages' uses are then named as the modules they are in."""
    python = shutil.which("python3") or shutil.which("python")
    if python is None:
        return ()
    try:
        done = subprocess.run([python, "-c", _DISTRIBUTIONS], capture_output=True, text=True, timeout=120, check=False)
        listed: object = json.loads(done.stdout) if done.returncode == 0 else []
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return ()
    items = cast(list[object], listed) if isinstance(listed, list) else []
    return tuple(cast(dict[str, object], d) for d in items if isinstance(d, dict))


_DISTRIBUTIONS = """
import importlib.metadata, json, sys
seen, found = set(), []
for dist in importlib.metadata.distributions():
    name = dist.metadata["Name"]
    if not name or name in seen:
        continue
    seen.add(name)
    files = [str(f) for f in dist.files or () if str(f).endswith((".py", ".pyi"))
             and not str(f).startswith("..") and "__pycache__" not in str(f)]
    found.append({"name": name, "version": dist.version, "files": files})
json.dump(found, sys.stdout)
"""


def _blind(project: Project, started: float, warnings: tuple[InvisibleScope, ...], reason: str,
           detail: str) -> AnalyzerRun:  # fmt: skip
    where = project.root or "."
    scope = InvisibleScope(reason, project.language, where, project.root, f"{project.spec.name}: {detail}")
    return AnalyzerRun(project, None, time.monotonic() - started, (*warnings, scope))


def anchor_replacements(go_mod: Path, original: Path, tree: Path | None = None) -> None:
    """In a copy's go.mod, point `replace … => ../sibling` at the sibling beside the original
    module: the copy lives elsewhere, and a relative path would lead nowhere. A replacement that
    stays inside the copied `tree` (a module of the same repository) is left to the copy: what
    the commit holds there is what it builds with, not whatever the working tree holds now."""
    try:
        text = go_mod.read_text(encoding="utf-8")
    except OSError:
        return
    anchored: list[str] = []
    at = 0
    for replacement in local_replacements(text):
        if tree is not None and _within(Path(os.path.normpath(go_mod.parent / replacement.directory)), tree):
            continue
        anchored += [text[at : replacement.start], go_mod_token(os.path.normpath(original / replacement.directory))]
        at = replacement.end
    if at:
        go_mod.write_text("".join(anchored) + text[at:], encoding="utf-8")


def _within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def go_workspace(module: Path, tree: Path, origin: Path | None, root: str, scratch: Path) -> str:
    """GOWORK for the module at `module` of the copy `tree`: "off" unless a go.work uses it — the
    commit's own (the nearest above the module, inside the tree), else the one go would find
    from the working tree `origin` (an untracked go.work beside the modules, or one above the
    repository), or the file GOWORK names. That go.work is written out again with each
    directory it names resolved: inside the repository, to the copy; outside, to the original."""
    configured = os.environ.get("GOWORK", "")
    if configured == "off":
        return "off"
    found: Path | None = Path(configured) if os.path.isabs(configured) else None
    in_copy = False
    if found is None:
        for directory in (module, *module.parents):
            if not _within(directory, tree):
                break
            if (directory / "go.work").is_file():
                found, in_copy = directory / "go.work", True
                break
    if found is None and origin is not None:
        start = origin / root
        found = next((d / "go.work" for d in (start, *start.parents) if (d / "go.work").is_file()), None)
    if found is None or not found.is_file():
        return "off"

    def place(directory: Path) -> Path:
        if in_copy:
            if _within(directory, tree) or origin is None:
                return directory
            return Path(os.path.normpath(origin / os.path.relpath(directory, tree)))
        if origin is not None and _within(directory, origin):
            return tree / os.path.relpath(directory, origin)
        return directory

    try:
        done = run_tool(["go", "work", "edit", "-json", str(found)], None, ANALYZER_TIMEOUT_SECONDS, {"GOWORK": "off"})
    except (OSError, subprocess.TimeoutExpired):
        return "off"
    if done.returncode != 0:
        return "off"  # an unreadable go.work: the module alone, and `go list` says what that cannot load
    workspace = read_workspace(done.stdout, found.parent, place)
    if not any(os.path.realpath(use) == os.path.realpath(module) for use in workspace.uses):
        return "off"  # go would refuse to work in a module its workspace does not use
    written = scratch / f"go-work-{abs(hash(root))}" / "go.work"
    written.parent.mkdir(parents=True, exist_ok=True)
    written.write_text(workspace_text(workspace), encoding="utf-8")
    return str(written)


def go_flags() -> str:
    """GOFLAGS for the go commands of a Go project: what the user's go env file sets (a GOFLAGS
    variable is left out of every analyzer's environment), and -trimpath.

    The build cache keys what it compiles by absolute directory, and each run indexes a fresh
    copy of the tree: without -trimpath scip-go recompiles every package of the module each time
    (16 s rather than 2 for 400 files). With it any copy finds the cache warm, and the index is
    the same: scip-go names documents and symbols by module-relative path, never by directory.
    """
    try:
        done = run_tool(["go", "env", "GOFLAGS"], None, ANALYZER_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return "-trimpath"  # no go command: the go commands that follow say so
    configured = done.stdout.strip() if done.returncode == 0 else ""
    return f"{configured} -trimpath".strip()


def _vendored(module: Path, env: dict[str, str]) -> bool:
    """Whether the go command builds the module from its vendor directory, as it does when
    vendor/modules.txt is there (unless GOFLAGS says -mod=mod): nothing is downloaded then (`go mod
    download` would try, and fail on a module published nowhere), and `go list` says what did
    not load."""
    flags = env.get("GOFLAGS", "").split()
    return (env.get("GOWORK") == "off" and (module / "vendor" / "modules.txt").is_file()
            and not {"-mod=mod", "-mod=readonly"} & set(flags))  # fmt: skip


def _go_dependencies(module: Path, env: dict[str, str], scratch: Path | None) -> str:
    """ "" when every dependency of the module is available; else why not (first error line).

    `go mod download` rewrites the go.mod it runs with (a missing `go` line becomes the toolchain's
    version, a go line older than a dependency's is raised, indirect requirements are listed), and
    on the copy of the tree that go.mod is read by every module that replaces this one by its
    directory, whose own go line the go command then raised to match: what a module's index said
    (scip-go names the standard library by the module's go version) depended on which of the
    tree's modules had run before it, in one run or in a shard. Outside a workspace (where
    -modfile is refused) it runs on a copy of the go.mod in `scratch`, stating the go version the
    go command assumes where the go.mod states none (`dated`: the checksums it records are then
    those the module needs as committed), and only the checksums are kept, in the module's go.sum,
    which its own go commands alone read. Every module is type-checked as committed."""
    command = ["go", "mod", "download"]
    sums = module / "go.sum"
    if scratch is not None:
        scratch.mkdir(parents=True, exist_ok=True)
        text = (module / "go.mod").read_text(encoding="utf-8", errors="surrogateescape")
        (scratch / "go.mod").write_text(dated(text), encoding="utf-8", errors="surrogateescape")
        if sums.is_file():
            shutil.copyfile(sums, scratch / "go.sum")  # -modfile's go.sum is the one beside it
        command.append(f"-modfile={scratch / 'go.mod'}")
    try:
        done = run_tool(command, module, ANALYZER_TIMEOUT_SECONDS, env)
        if done.returncode != 0:
            _fetch_each_requirement(module, command, env)
    except (OSError, subprocess.TimeoutExpired) as err:
        return str(err)
    finally:
        if scratch is not None and (scratch / "go.sum").is_file():
            shutil.copyfile(scratch / "go.sum", sums)
    if done.returncode == 0:
        return ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return lines[0] if lines else f"exited with {done.returncode}"


def _fetch_each_requirement(module: Path, download: list[str], env: dict[str, str]) -> None:
    """Fetch every module version the go.mod requires that can be: one the proxy refuses (a
    version withdrawn, a private module) stops `go mod download` before it fetches any, and what
    the module uses of the others then loaded only if another module of the tree had fetched
    them first — in one run, not in the shard that held the module alone (the opentelemetry-go
    bridge's grpc was standard library on a cold module cache). Its blind spot stays stated."""
    listed = run_tool(["go", "mod", "edit", "-json", str(module / "go.mod")], module, ANALYZER_TIMEOUT_SECONDS, env)
    try:
        wanted = read_requirements(listed.stdout) if listed.returncode == 0 else []
    except ValueError:  # not the JSON go prints: nothing more to fetch than the download did
        wanted = []
    if wanted:
        run_tool([*download, *wanted], module, ANALYZER_TIMEOUT_SECONDS, env)


GO_LIST = ["go", "list", "-e", "-deps", "-test", "-json=ImportPath,Dir,Module,Error,DepsErrors", "./..."]


def _go_packages(
    project: Project, module: Path, tree: Path, env: dict[str, str]
) -> tuple[list[InvisibleScope], tuple[tuple[str, str], ...]]:
    """What `go list` says of the module's packages: one invisible scope per package of the tree
    whose import did not load (scip-go would index it as if nothing were wrong, the import
    labelled standard library), and the modules loaded from inside the tree."""
    where = project.root or "."

    def unlisted(detail: str) -> tuple[list[InvisibleScope], tuple[tuple[str, str], ...]]:
        return [InvisibleScope("PACKAGE_NOT_LOADED", project.language, where, project.root, f"go list: {detail}")], ()

    try:
        done = run_tool(GO_LIST, module, ANALYZER_TIMEOUT_SECONDS, env)
    except subprocess.TimeoutExpired:
        return unlisted(f"did not finish within {ANALYZER_TIMEOUT_SECONDS:g}s")
    except OSError as err:
        return unlisted(f"could not start ({err.strerror})")
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return unlisted(lines[0] if lines else f"exited with {done.returncode}")
    listing = read_listing(done.stdout, module, tree)
    scopes = [
        InvisibleScope("PACKAGE_NOT_LOADED", project.language, p.import_path or p.directory or ".", p.directory,
                       f"go list: {p.detail}")
        for p in listing.problems
    ]  # fmt: skip
    return scopes, tuple(sorted(listing.local_modules.items()))


def merge_go(runs: list[AnalyzerRun], tree: Collection[str]) -> list[AnalyzerRun]:
    """The Go indexes of one tree as one, so that a use in one module of a declaration in another
    module of the same tree is an exact edge like any other.

    scip-go names a symbol by module path, version, package and name, and each module's index
    names another module's symbols as it resolved them. Where the go command loaded a module
    from inside the tree (the module itself, a `replace` or go.work `use` of a sibling), its
    symbols are given one version per directory in every index, so the use and the declaration
    meet; a module it loaded from anywhere else (a published version of the same path) keeps its
    own version and stays external. `tree`: the roots of every Go module of the tree, which these
    runs are some of (go_versions: a module that did not run, or gave no index, still has a directory).
    """
    go = [(r, r.index) for r in runs if r.project.spec.name == "scip-go" and r.index is not None]
    if not go:
        return runs
    tables = go_versions([(r.project.root, r.local_modules) for r, _ in go], tree)
    defined = {
        versioned(symbol, table)
        for (_, index), table in zip(go, tables, strict=True)
        for symbol in {o.symbol for d in index.documents for o in d.occurrences if o.roles & DEFINITION}
    }
    documents: list[Document] = []
    external: list[SymbolInfo] = []
    invisible: list[InvisibleScope] = []
    for (run, index), table in zip(go, tables, strict=True):
        rename = _renamer(table, defined)
        prefix = f"{run.project.root}/" if run.project.root else ""
        for document in index.documents:
            documents.append(
                replace(document, path=prefix + document.path,
                        occurrences=tuple(_occurrence(o, rename) for o in document.occurrences),
                        symbols=tuple(_symbol_info(i, rename) for i in document.symbols))
            )  # fmt: skip
        external += [_symbol_info(i, rename) for i in index.external_symbols]
        invisible += [scope for scope in run.invisible if scope not in invisible]
    first, first_index = go[0]
    merged = replace(first_index, project_root="", documents=tuple(documents), external_symbols=tuple(external))
    together = AnalyzerRun(Project(first.project.spec, "", Language.GO), merged,
                           sum(r.seconds for r, _ in go), tuple(invisible))  # fmt: skip
    return [together, *(r for r in runs if all(r is not g for g, _ in go))]


def _renamer(table: dict[str, str], defined: set[str]) -> Callable[[str], str]:
    """Each symbol of one module's index → its name in the merged index (an index names a few
    thousand symbols in hundreds of thousands of occurrences: each is renamed once)."""
    renamed: dict[str, str] = {}

    def rename(symbol: str) -> str:
        found = renamed.get(symbol)
        if found is None:
            found = renamed[symbol] = member(versioned(symbol, table), defined)
        return found

    return rename


def _occurrence(occurrence: Occurrence, rename: Callable[[str], str]) -> Occurrence:
    symbol = rename(occurrence.symbol)
    return occurrence if symbol == occurrence.symbol else occurrence._replace(symbol=symbol)


def _symbol_info(info: SymbolInfo, rename: Callable[[str], str]) -> SymbolInfo:
    relationships = tuple(_relationship(r, rename) for r in info.relationships)
    symbol, enclosing = rename(info.symbol), rename(info.enclosing_symbol)
    if (symbol, enclosing, relationships) == (info.symbol, info.enclosing_symbol, info.relationships):
        return info
    return replace(info, symbol=symbol, relationships=relationships, enclosing_symbol=enclosing)


def _relationship(relationship: Relationship, rename: Callable[[str], str]) -> Relationship:
    symbol = rename(relationship.symbol)
    return relationship if symbol == relationship.symbol else replace(relationship, symbol=symbol)


class Analysis:
    """The indexers of one tree, running in the background while the syntax layer parses.

    With `in_place` (a working tree that holds exactly the indexed files) they run there;
    otherwise the tree is read and written out here, before anything else: a worker thread that
    wrote it while the syntax layer parsed got the interpreter lock back a few milliseconds after
    each file, and 300 files that take 0.1 s held every indexer of a shard back by 1.4 s. The
    indexers are separate processes, so a worker thread that waits on them leaves the
    interpreter free. `finish` waits, removes what was written, and returns the runs and the
    scopes no indexer could be run on at all.
    """

    def __init__(
        self,
        files: list[tuple[str, Callable[[], bytes]]],
        languages: frozenset[Language],
        worktree: str | None,
        in_place: bool = False,
        only: frozenset[str] | None = None,
        go_modules: frozenset[str] | None = None,
    ) -> None:
        """`only`: run just the projects with these ids, and state nothing of the whole tree (the
        caller does: kivgraph/units.py, which indexes a few units). `go_modules`: the roots of every
        Go module of the whole tree (default: those of `files`), so that two modules of one path stay
        apart whether or not both run here, or both indexed (merge_go)."""
        paths = [p for p, _ in files]
        self.left_out = unconfigured(paths, languages) if only is None else []
        found = projects(paths, languages)
        wanted = [p for p in found if only is None or p.id in only]
        self.go_modules = go_modules if go_modules is not None else frozenset(
            p.root for p in found if p.spec.name == "scip-go")  # fmt: skip
        self.in_place = bool(in_place and worktree)
        self.scratch = Path(tempfile.mkdtemp(prefix="kivgraph-scip-")) if wanted else None
        self.pool = ThreadPoolExecutor(max_workers=ANALYZER_WORKERS, thread_name_prefix="kivgraph-analyzers")
        self.pending: list[Future[AnalyzerRun]] = []
        self.runs: list[AnalyzerRun] | None = None
        self.unmerged: list[AnalyzerRun] = []
        """Each project's own run, before Go's are merged into one: what each took."""
        self.in_memory: Path | None = None
        """Where the copy is written when a file system in memory has room for it."""
        if self.scratch is None:
            return
        places = {p: self.in_place and worktree is not None and p.spec.name not in NEVER_IN_PLACE for p in wanted}
        copied = self.scratch / "tree"
        if not all(places.values()):  # written before anything runs on it
            go = [p.root for p, here in places.items() if not here and p.spec.name == "scip-go"]
            try:
                tree_files = copied_files(files, [p for p, here in places.items() if not here])
                copied = self._write(tree_files, worktree, go, self.scratch)
            except BaseException:
                self.finish()
                raise
        origin = Path(worktree) if worktree else None
        shared = Shared(tuple(p for p in paths if p.endswith(PYTHON_SUFFIXES)))
        for project, here in places.items():
            tree = Path(worktree) if here and worktree is not None else copied
            self.pending.append(self.pool.submit(run_project, project, tree, self.scratch, here, origin, shared))

    def _write(self, tree_files: list[tuple[str, bytes]], worktree: str | None, go: list[str], scratch: Path) -> Path:
        """Where the copy was written: in memory when there is room, else (or when writing there
        failed: another process may have filled it since) in the scratch directory."""
        self.in_memory = memory_directory(sum(len(data) for _, data in tree_files))
        if self.in_memory is not None:
            try:
                return materialize(tree_files, worktree, self.in_memory / "tree", go)
            except OSError:
                shutil.rmtree(self.in_memory, ignore_errors=True)
                self.in_memory = None
        return materialize(tree_files, worktree, scratch / "tree", go)

    def finish(self) -> tuple[list[AnalyzerRun], list[InvisibleScope]]:
        try:
            if self.runs is None:
                self.unmerged = [future.result() for future in self.pending]
                self.runs = merge_go(self.unmerged, self.go_modules)
            return self.runs, self.left_out
        finally:
            self.pool.shutdown(wait=True, cancel_futures=True)
            for written in (self.scratch, self.in_memory):
                if written is not None:
                    shutil.rmtree(written, ignore_errors=True)
