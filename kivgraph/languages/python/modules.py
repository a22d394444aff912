"""Python module resolution and import packages: specifiers → files of the tree, files → packages.

Reads only the tree's paths and its `pyproject.toml`/`setup.cfg` through `RepoLayout`; never the
interpreter's `sys.path`, so everything not found in the tree is an external package.
"""

import configparser
import re
import tomllib
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from kivgraph.languages import ModuleTarget, RepoLayout, path_prefixes
from kivgraph.model import Language, Package

INIT_FILES = ("__init__.py", "__init__.pyi")
EXPLICIT_ROOTS = ("", "src")


@dataclass(frozen=True, slots=True)
class PythonTree:
    """What the tree's paths say about its import system."""

    package_dirs: frozenset[str]
    """Directories with an `__init__.py` (or `.pyi`)."""
    roots: tuple[str, ...]
    """Source roots: "" and `src`, then every directory holding a top-level package."""
    top_names: frozenset[str]
    """First segments that name a module or package of this tree under some root."""


TREES: "weakref.WeakKeyDictionary[RepoLayout, PythonTree]" = weakref.WeakKeyDictionary()


def parent_dir(path: str) -> str:
    return path.rpartition("/")[0]


def joined(base: str, rest: str) -> str:
    return f"{base}/{rest}" if base and rest else base or rest


def python_tree(layout: RepoLayout) -> PythonTree:
    cached = TREES.get(layout)
    if cached is not None:
        return cached
    package_dirs = frozenset(
        parent_dir(path) for path in layout.paths if path.rpartition("/")[2] in INIT_FILES and "/" in path
    )
    found_roots = {parent_dir(d) for d in package_dirs if parent_dir(d) not in package_dirs}
    roots = [root for root in EXPLICIT_ROOTS if root == "" or root in layout.dirs]
    roots += sorted(found_roots - set(roots))
    root_set = set(roots)
    top_names: set[str] = set()
    for path in layout.paths:
        if not path.endswith((".py", ".pyi")):
            continue
        # The first segment below each root the path lies under.
        head, _, rest = path.rpartition("/")
        first = rest.rpartition(".")[0]
        while True:
            if head in root_set:
                top_names.add(first)
            if not head:
                break
            head, _, first = head.rpartition("/")
    tree = PythonTree(package_dirs, tuple(roots), frozenset(top_names))
    TREES[layout] = tree
    return tree


def module_files(base: str, parts: list[str], layout: RepoLayout) -> tuple[str, ...] | None:
    """The files of module `parts` under directory `base`, implementation before stub. None when
    nothing is there; () for a directory without `__init__` (a namespace package)."""
    path = joined(base, "/".join(parts))
    if parts:
        found = tuple(candidate for candidate in (f"{path}.py", f"{path}.pyi") if candidate in layout.paths)
        if found:
            return found
    found = tuple(joined(path, init) for init in INIT_FILES if joined(path, init) in layout.paths)
    if found:
        return found
    if path in layout.dirs:
        return ()
    return None


def resolve_python_module(spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
    tree = python_tree(layout)
    if spec.startswith("."):
        dots = len(spec) - len(spec.lstrip("."))
        base = parent_dir(from_file)
        for _ in range(dots - 1):
            if not base:
                return ModuleTarget(reason="MODULE_NOT_RESOLVED")
            base = parent_dir(base)
        rest = spec[dots:]
        files = module_files(base, rest.split(".") if rest else [], layout)
        return resolved(files)
    parts = spec.split(".")
    for root in search_roots(from_file, tree):
        files = module_files(root, parts, layout)
        if files is not None:
            return resolved(files)
    if parts[0] in tree.top_names:
        return ModuleTarget(reason="MODULE_NOT_RESOLVED")
    return ModuleTarget(external=parts[0])


def resolved(files: tuple[str, ...] | None) -> ModuleTarget:
    if files is None:
        return ModuleTarget(reason="MODULE_NOT_RESOLVED")
    if not files:
        return ModuleTarget(reason="NAMESPACE_PACKAGE")
    return ModuleTarget(files=files)


def search_roots(from_file: str, tree: PythonTree) -> list[str]:
    """Where an absolute import is looked for: a script's own directory first (Python puts it on
    `sys.path`), then the root the file lives under, then every other root."""
    own = parent_dir(from_file)
    ordered: list[str] = []
    if own not in tree.package_dirs:
        ordered.append(own)
    containing = [root for root in tree.roots if not root or from_file.startswith(f"{root}/")]
    if containing:
        ordered.append(max(containing, key=len))
    ordered.extend(tree.roots)
    return list(dict.fromkeys(ordered))


PYTHON_MANIFESTS = frozenset({"pyproject.toml", "setup.py", "setup.cfg"})
"""What makes a directory a Python project root: what pip installs a project from."""
PYTHON_SUFFIXES = (".py", ".pyi")
_NOT_PROJECTS = frozenset({"node_modules", "site-packages", "__pycache__"})


def python_roots(paths: Iterable[str]) -> list[str]:
    """The Python project roots of a tree: each directory with a pyproject.toml, setup.py or
    setup.cfg and Python files beneath it (not an installed copy, nor a hidden directory such as a
    virtualenv), and the top of the tree when a Python file lies outside every one of them."""
    paths = list(paths)
    manifests: set[str] = set()
    for path in paths:
        directory, _, name = path.rpartition("/")
        parts = directory.split("/") if directory else []
        if name in PYTHON_MANIFESTS and not any(p in _NOT_PROJECTS or p.startswith(".") for p in parts):
            manifests.add(directory)
    roots: set[str] = set()
    for path in paths:
        if path.endswith(PYTHON_SUFFIXES):
            holders = [d for d in [*path_prefixes(parent_dir(path)), ""] if d in manifests]
            roots.update(holders or [""])
    return sorted(roots)


def python_search_paths(paths: Iterable[str]) -> list[str]:
    """Where Python imports are found beside the top of the tree: each project root's `src`
    directory when its sources are there (the src layout), else the root itself — what installing
    every project of the tree would put on the path. One list for the whole tree, so that a module
    has one name whichever project's type checker names it (kivgraph/scip/run.py gives it to each)."""
    paths = list(paths)
    python = (p for p in paths if p.endswith(PYTHON_SUFFIXES))
    sources = {d for p in python for d in path_prefixes(parent_dir(p)) if d.endswith("src")}
    return [f"{r}/src" if f"{r}/src" in sources else r for r in python_roots(paths) if r]


_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)
_FROM = re.compile(rb"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)", re.MULTILINE)


def written_modules(data: bytes) -> set[str]:
    """The absolute modules a Python file's import statements may name, read without parsing:
    `import a.b` → a.b; `from a.b import c, d` → a.b.c, a.b.d (each name may be a submodule, or
    else is found in a.b: `module_places` takes the longest part that is a module); `from a.b
    import *` → a.b. Relative imports stay within their package and are left out."""
    found: set[str] = set()
    for match in _IMPORT.finditer(data):
        for item in match.group(1).decode("utf-8", "replace").split(","):
            name = item.split(" as ")[0].strip()
            if name and not name.startswith("."):
                found.add(name)
    for match in _FROM.finditer(data):
        module = match.group(1).decode("utf-8", "replace")
        if module.startswith("."):
            continue
        names = [item.split(" as ")[0].strip() for item in
                 match.group(2).decode("utf-8", "replace").strip("()").replace("\\", " ").split(",")]  # fmt: skip
        named = {f"{module}.{name}" for name in names if name.isidentifier()}
        found |= named or {module}
    return found


def module_places(module: str, layout: RepoLayout) -> list[str]:
    """Where the longest part of a dotted name that is a module of the tree lies, at the top of the
    tree or under any project root (`search_bases`): the files of the first module or regular
    package of that name, else the directory of a namespace package under each base that has it.
    [] when no part of it is the tree's."""
    known = PLACES.setdefault(layout, {})
    if module not in known:
        parts = module.split(".")
        known[module] = []
        for end in range(len(parts), 0, -1):
            found = [(base, module_files(base, parts[:end], layout)) for base in search_bases(layout)]
            # As the type checker looks: the first module or regular package found, else every
            # directory of the namespace package.
            files = next((f for _, f in found if f), None)
            known[module] = list(files) if files else [joined(b, "/".join(parts[:end])) for b, f in found if f == ()]
            if known[module]:
                break
    return known[module]


def search_bases(layout: RepoLayout) -> tuple[str, ...]:
    """Where a type checker run on the tree finds an absolute import: its top, then
    `python_search_paths` (cached per layout)."""
    cached = BASES.get(layout)
    if cached is None:
        cached = BASES[layout] = ("", *python_search_paths(layout.paths))
    return cached


BASES: "weakref.WeakKeyDictionary[RepoLayout, tuple[str, ...]]" = weakref.WeakKeyDictionary()
PLACES: "weakref.WeakKeyDictionary[RepoLayout, dict[str, list[str]]]" = weakref.WeakKeyDictionary()


def python_packages(layout: RepoLayout, files: list[str]) -> dict[str, Package]:
    """Each file's import package: its dotted directory from the source root, or, for a module
    outside any package, a package named after the module."""
    placed = _placed(python_tree(layout), files)
    # Whether a name is two packages' is the whole tree's to say, whatever part of it is indexed.
    whole = layout.whole
    every = (
        placed
        if whole is None
        else _placed(python_tree(whole), [p for p in whole.paths if p.endswith(PYTHON_SUFFIXES)])
    )
    dirs_of: dict[str, set[str]] = {}
    for name, directory in every.values():
        dirs_of.setdefault(name, set()).add(directory)
    packages: dict[str, Package] = {}
    for path, (name, directory) in placed.items():
        # Two unrelated trees may both hold `tests` or `conftest`: the directory keeps ids unique.
        ident = f"python:{name}" if len(dirs_of[name]) == 1 else f"python:{name}@{directory}"
        manifest, version, shipped_in = distribution(layout, path)
        packages[path] = Package(ident, Language.PYTHON, name, directory, manifest, version, shipped_in)
    return packages


def _placed(tree: PythonTree, files: list[str]) -> dict[str, tuple[str, str]]:
    """Each file's (import package, directory)."""
    placed: dict[str, tuple[str, str]] = {}
    for path in files:
        directory = parent_dir(path)
        if directory in tree.package_dirs:
            top = directory
            while "/" in top and parent_dir(top) in tree.package_dirs:
                top = parent_dir(top)
            root = parent_dir(top) if "/" in top else ""
            name = (directory[len(root) + 1 :] if root else directory).replace("/", ".")
            placed[path] = (name, directory)
        else:
            stem = path.rpartition("/")[2].rpartition(".")[0]
            if stem:
                placed[path] = (stem, directory)
    return placed


def distribution(layout: RepoLayout, path: str) -> tuple[str, str, str]:
    """The closest `pyproject.toml` or `setup.cfg` above `path`, the version and distribution
    name it states."""
    candidates = [
        found for found in (layout.nearest(path, "pyproject.toml"), layout.nearest(path, "setup.cfg")) if found
    ]
    if not candidates:
        return "", "", ""
    manifest = max(candidates, key=lambda found: found.count("/"))
    name, version = manifest_metadata(layout, manifest)
    return manifest, version, name


METADATA: "weakref.WeakKeyDictionary[RepoLayout, dict[str, tuple[str, str]]]" = weakref.WeakKeyDictionary()


def manifest_metadata(layout: RepoLayout, manifest: str) -> tuple[str, str]:
    """(distribution name, version) a manifest states, read once per layout."""
    known = METADATA.setdefault(layout, {})
    if manifest not in known:
        known[manifest] = read_metadata(manifest, layout.read_text(manifest) or "")
    return known[manifest]


def read_metadata(manifest: str, content: str) -> tuple[str, str]:
    """(name, version) of `[project]` (or `[tool.poetry]`) in pyproject.toml, or `[metadata]` in
    setup.cfg; "" for what it does not state."""
    if manifest.endswith(".toml"):
        try:
            data = tomllib.loads(content)
        except tomllib.TOMLDecodeError:
            return "", ""
        tool = toml_table(data.get("tool")) or {}
        found = {"name": "", "version": ""}
        for candidate in (data.get("project"), tool.get("poetry")):
            table = toml_table(candidate) or {}
            for field in found:
                value = table.get(field)
                if not found[field] and isinstance(value, str):
                    found[field] = value.strip()
        return found["name"], found["version"]
    config = configparser.ConfigParser(interpolation=None)
    try:
        config.read_string(content)
    except configparser.Error:
        return "", ""
    version = config.get("metadata", "version", fallback="").strip()
    # `version = attr: pkg.__version__` and `file:` are computed at build time, not stated.
    version = "" if version.startswith(("attr:", "file:")) else version
    return config.get("metadata", "name", fallback="").strip(), version


def toml_table(value: object) -> dict[str, object] | None:
    """`value` when it is a TOML table (keys are always strings in TOML)."""
    return cast(dict[str, object], value) if isinstance(value, dict) else None
