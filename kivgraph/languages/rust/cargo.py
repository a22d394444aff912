"""Cargo manifests and Rust module files: which crate a file belongs to, and where `a::b` lives.

Reads manifests and sources only through `RepoLayout`; per-layout facts are cached weakly so an
adapter instance can serve many trees. Module paths follow rustc's rules for `mod x;` files.
"""

import re
import tomllib
from dataclasses import dataclass, field
from typing import cast
from weakref import WeakKeyDictionary

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.model import Language, Package

MANIFEST = "Cargo.toml"
STD_CRATES = frozenset({"std", "core", "alloc", "proc_macro", "test"})
NOT_RESOLVED = "MODULE_NOT_RESOLVED"
ROOT_DIRS = ("tests/", "examples/", "benches/", "src/bin/")


@dataclass(frozen=True, slots=True)
class Crate:
    name: str
    """The package name as written in `[package] name` (may contain `-`)."""
    directory: str
    manifest: str
    version: str
    lib: str
    """The library root file ("" when the crate has no library target in the tree)."""
    main: str
    bins: tuple[str, ...]


@dataclass(slots=True)
class LayoutFacts:
    manifests: dict[str, dict[str, object] | None] = field(default_factory=dict[str, dict[str, object] | None])
    crates: dict[str, Crate | None] = field(default_factory=dict[str, Crate | None])
    by_ident: dict[str, Crate] | None = None
    mentions: dict[tuple[str, str], bool] = field(default_factory=dict[tuple[str, str], bool])


_facts: "WeakKeyDictionary[RepoLayout, LayoutFacts]" = WeakKeyDictionary()


def facts(layout: RepoLayout) -> LayoutFacts:
    found = _facts.get(layout)
    if found is None:
        found = LayoutFacts()
        _facts[layout] = found
    return found


def join(directory: str, relative: str) -> str:
    return f"{directory}/{relative}" if directory else relative


def directory_of(path: str) -> str:
    return path.rpartition("/")[0]


def _table(value: object) -> dict[str, object] | None:
    """A TOML table (always string-keyed) as a typed dict; None for any other value."""
    return cast(dict[str, object], value) if isinstance(value, dict) else None


def read_manifest(layout: RepoLayout, path: str) -> dict[str, object] | None:
    cache = facts(layout).manifests
    if path not in cache:
        text = layout.read_text(path)
        try:
            cache[path] = tomllib.loads(text) if text is not None else None
        except tomllib.TOMLDecodeError:
            cache[path] = None
    return cache[path]


def crate_at(layout: RepoLayout, manifest: str) -> Crate | None:
    """The crate a `Cargo.toml` declares (None for a virtual workspace manifest or a broken one)."""
    cache = facts(layout).crates
    if manifest in cache:
        return cache[manifest]
    data = read_manifest(layout, manifest)
    package = _table(data.get("package")) if data else None
    name = package.get("name") if package is not None else None
    crate: Crate | None = None
    if package is not None and isinstance(name, str):
        directory = directory_of(manifest)
        lib_section = _table(data.get("lib")) if data else None
        lib_path = lib_section.get("path") if lib_section is not None else None
        lib = join(directory, lib_path if isinstance(lib_path, str) else "src/lib.rs")
        main = join(directory, "src/main.rs")
        bins: list[str] = []
        bin_sections = data.get("bin") if data else None
        if isinstance(bin_sections, list):
            for section in cast(list[object], bin_sections):
                table = _table(section)
                bin_path = table.get("path") if table is not None else None
                if isinstance(bin_path, str):
                    bins.append(join(directory, bin_path))
        crate = Crate(
            name=name,
            directory=directory,
            manifest=manifest,
            version=_version(layout, package, directory),
            lib=lib if lib in layout.paths else "",
            main=main if main in layout.paths else "",
            bins=tuple(b for b in bins if b in layout.paths),
        )
    cache[manifest] = crate
    return crate


def _version(layout: RepoLayout, package: dict[str, object], directory: str) -> str:
    version = package.get("version")
    if isinstance(version, str):
        return version
    version_table = _table(version)
    if version_table is not None and version_table.get("workspace") and directory:
        # `version.workspace = true`: the value lives in an enclosing workspace manifest.
        workspace_manifest = layout.nearest(directory, MANIFEST)
        data = read_manifest(layout, workspace_manifest) if workspace_manifest else None
        workspace = _table(data.get("workspace")) if data else None
        shared = _table(workspace.get("package")) if workspace is not None else None
        shared_version = shared.get("version") if shared is not None else None
        if isinstance(shared_version, str):
            return shared_version
    return ""


def crate_of(layout: RepoLayout, path: str) -> Crate | None:
    manifest = layout.nearest(path, MANIFEST)
    return crate_at(layout, manifest) if manifest else None


def workspace_crates(layout: RepoLayout) -> dict[str, Crate]:
    """Every crate of the tree by the name code uses for it (`my-crate` → `my_crate`)."""
    state = facts(layout)
    if state.by_ident is None:
        found: dict[str, Crate] = {}
        for path in sorted(layout.paths):
            if path == MANIFEST or path.endswith("/" + MANIFEST):
                crate = crate_at(layout, path)
                if crate is not None:
                    found.setdefault(crate.name.replace("-", "_"), crate)
        state.by_ident = found
    return state.by_ident


def packages(layout: RepoLayout, files: list[str]) -> dict[str, Package]:
    out: dict[str, Package] = {}
    for path in files:
        crate = crate_of(layout, path)
        if crate is None:
            continue
        out[path] = Package(
            id=f"rust:{crate.name}",
            language=Language.RUST,
            name=crate.name,
            root=crate.directory,
            manifest=crate.manifest,
            version=crate.version,
        )
    return out


def crate_root(crate: Crate | None, path: str) -> str:
    """The root file of the crate target `path` is compiled in (lib before main for `src/`)."""
    if crate is None:
        return path
    if path in (crate.lib, crate.main) or path in crate.bins:
        return path
    relative = path[len(crate.directory) + 1 :] if crate.directory else path
    if relative == "build.rs":
        return path
    for root_dir in ROOT_DIRS:
        if relative.startswith(root_dir):
            rest = relative[len(root_dir) :]
            if "/" not in rest:
                return path  # tests/x.rs, examples/x.rs, src/bin/x.rs are crate roots
            main = join(crate.directory, f"{root_dir}{rest.split('/')[0]}/main.rs")
            if main == path:
                return path
    return crate.lib or crate.main or path


def module_path(path: str, root: str) -> list[str] | None:
    """`src/a/b.rs` under root `src/lib.rs` → ["a", "b"]; None when `path` is outside the tree."""
    if path == root:
        return []
    base = directory_of(root)
    prefix = f"{base}/" if base else ""
    if not path.startswith(prefix) or not path.endswith(".rs"):
        return None
    parts = path[len(prefix) : -3].split("/")
    if parts[-1] == "mod":
        parts.pop()
    return parts


def module_file(layout: RepoLayout, root: str, segments: list[str]) -> str | None:
    if not segments:
        return root
    stem = join(directory_of(root), "/".join(segments))
    for candidate in (f"{stem}.rs", f"{stem}/mod.rs"):
        if candidate in layout.paths:
            return candidate
    return None


def mentions(layout: RepoLayout, path: str, name: str) -> bool:
    """Whether a file names `name` at all: an inline module, item or re-export could live there."""
    state = facts(layout)
    key = (path, name)
    if key not in state.mentions:
        text = layout.read_text(path) or ""
        state.mentions[key] = re.search(rf"\b{re.escape(name)}\b", text) is not None
    return state.mentions[key]


def declares_inline_module(layout: RepoLayout, path: str, name: str) -> bool:
    state = facts(layout)
    key = (path, f"mod {name} {{")
    if key not in state.mentions:
        text = layout.read_text(path) or ""
        state.mentions[key] = re.search(rf"\bmod\s+{re.escape(name)}\s*\{{", text) is not None
    return state.mentions[key]


def resolve_module(spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
    segments = [s for s in spec.split("::") if s]
    if not segments:
        return ModuleTarget(reason=NOT_RESOLVED)
    crate = crate_of(layout, from_file)
    root = crate_root(crate, from_file)
    here = module_path(from_file, root)
    if here is None:
        # A file outside its crate's module tree (tests/common/mod.rs): its own root.
        root, here = from_file, []
    head = segments[0]
    rest = segments[1:]
    if head in ("crate", "$crate"):
        if crate is None:
            return ModuleTarget(reason=NOT_RESOLVED)
        path: list[str] = []
    elif head == "self":
        path = list(here)
    elif head == "super":
        path = list(here)
        rest = segments
        while rest and rest[0] == "super":
            if not path:
                return ModuleTarget(reason=NOT_RESOLVED)
            path.pop()
            rest = rest[1:]
    elif head in STD_CRATES:
        return ModuleTarget(external=head)
    else:
        if module_file(layout, root, [*here, head]) is not None:
            path = [*here, head]  # 2018 paths may start with a module declared right here
        elif head[:1].isupper() or declares_inline_module(layout, from_file, head):
            return ModuleTarget(files=(from_file,))  # an item or inline module of this file
        else:
            other = workspace_crates(layout).get(head)
            if other is None:
                return ModuleTarget(external=head)
            root = other.lib or other.main
            if not root:
                return ModuleTarget(reason=NOT_RESOLVED)
            path = []
    current = module_file(layout, root, path)
    if current is None:
        return ModuleTarget(reason=NOT_RESOLVED)
    for segment in rest:
        deeper = module_file(layout, root, [*path, segment])
        if deeper is None:
            # An inline module, an item or a re-export of `current`: the resolver looks the rest
            # of the path up there. A name the file never mentions cannot be any of those.
            if not mentions(layout, current, segment):
                return ModuleTarget(reason=NOT_RESOLVED)
            break
        path.append(segment)
        current = deeper
    return ModuleTarget(files=(current,))
