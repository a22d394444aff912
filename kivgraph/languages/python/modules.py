"""Python module resolution and import packages: specifiers → files of the tree, files → packages.

Reads only the tree's paths and its `pyproject.toml`/`setup.cfg` through `RepoLayout`; never the
interpreter's `sys.path`, so everything not found in the tree is an external package.
"""

import configparser
import tomllib
import weakref
from dataclasses import dataclass
from typing import cast

from kivgraph.languages import ModuleTarget, RepoLayout
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


def python_packages(layout: RepoLayout, files: list[str]) -> dict[str, Package]:
    """Each file's import package: its dotted directory from the source root, or, for a module
    outside any package, a package named after the module."""
    tree = python_tree(layout)
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
    dirs_of: dict[str, set[str]] = {}
    for name, directory in placed.values():
        dirs_of.setdefault(name, set()).add(directory)
    packages: dict[str, Package] = {}
    for path, (name, directory) in placed.items():
        # Two unrelated trees may both hold `tests` or `conftest`: the directory keeps ids unique.
        ident = f"python:{name}" if len(dirs_of[name]) == 1 else f"python:{name}@{directory}"
        manifest, version, shipped_in = distribution(layout, path)
        packages[path] = Package(ident, Language.PYTHON, name, directory, manifest, version, shipped_in)
    return packages


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
