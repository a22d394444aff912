"""Reading package.json and tsconfig.json/jsconfig.json of the tree being indexed.

tsconfig files are JSON with comments and trailing commas; `extends` chains inside the tree are
followed for `baseUrl` and `paths`. Parsed manifests are cached per `RepoLayout`. No resolution
rules here (that is `modules`), only what the files say.
"""

import json
import posixpath
import re
from dataclasses import dataclass
from typing import Any, cast
from weakref import WeakKeyDictionary

from kivgraph.languages import RepoLayout


@dataclass(frozen=True, slots=True)
class PackageManifest:
    path: str
    """Repository-relative path of the package.json."""
    root: str
    """Its directory ("" for the repository root)."""
    name: str
    version: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PathsConfig:
    """The module-resolution part of a tsconfig, with every path already made repository-relative."""

    path: str
    base_url: str | None
    paths: tuple[tuple[str, tuple[str, ...]], ...]
    """(pattern, substitutions) in the order written; substitutions are repository-relative."""
    out_dir: str | None = None
    root_dir: str | None = None
    declaration_dir: str | None = None
    """Where tsc writes what it compiles from `root_dir` (declarations to `declaration_dir`, else
    `out_dir`): repository-relative."""

    def emitted_from(self, declaration: str) -> tuple[str, ...]:
        """The sources tsc compiles into the declaration file `declaration` (repository-relative)
        under this configuration: `dist/a/b.d.ts` ← `src/a/b.ts` (or `.tsx`, `.js`, `.jsx`)."""
        suffix = next((x for x in DECLARATION_SOURCES if declaration.endswith(x)), None)
        if suffix is None:
            return ()
        stem, sources = declaration.removesuffix(suffix), DECLARATION_SOURCES[suffix]
        found: list[str] = []
        source_root = self.root_dir if self.root_dir is not None else self.path.rpartition("/")[0]
        for emitted_root in dict.fromkeys(d for d in (self.declaration_dir, self.out_dir) if d is not None):
            prefix = f"{emitted_root}/" if emitted_root else ""
            if stem.startswith(prefix):
                rest = stem.removeprefix(prefix)
                found.extend(normalize(posixpath.join(source_root, rest + ext)) for ext in sources)
        return tuple(found)


class ManifestCache:
    """Parsed manifests of one layout (a layout is one tree at one commit)."""

    def __init__(self, layout: RepoLayout) -> None:
        self.layout = layout
        self.packages: dict[str, PackageManifest | None] = {}
        self.configs: dict[str, PathsConfig | None] = {}
        self._workspace: dict[str, tuple[PackageManifest, ...]] | None = None

    def package(self, path: str) -> PackageManifest | None:
        if path not in self.packages:
            self.packages[path] = read_package(self.layout, path)
        return self.packages[path]

    def named_package_for(self, file: str) -> PackageManifest | None:
        """The closest package.json above `file` that has a name (marker files without one,
        like `{"type": "module"}`, are skipped)."""
        directory = file.rpartition("/")[0]
        while True:
            candidate = f"{directory}/package.json" if directory else "package.json"
            if candidate in self.layout.paths:
                manifest = self.package(candidate)
                if manifest is not None and manifest.name:
                    return manifest
            if not directory:
                return None
            directory = directory.rpartition("/")[0]

    def workspace(self) -> dict[str, tuple[PackageManifest, ...]]:
        """Every named package of the tree outside node_modules, by name."""
        if self._workspace is None:
            found: dict[str, list[PackageManifest]] = {}
            for path in sorted(self.layout.paths):
                if not (path == "package.json" or path.endswith("/package.json")):
                    continue
                if "node_modules/" in path:
                    continue
                manifest = self.package(path)
                if manifest is not None and manifest.name:
                    found.setdefault(manifest.name, []).append(manifest)
            self._workspace = {name: tuple(items) for name, items in found.items()}
        return self._workspace

    def paths_config(self, file: str) -> PathsConfig | None:
        """The resolution settings of the tsconfig.json/jsconfig.json closest to `file`."""
        config = nearest_config(self.layout, file)
        if config is None:
            return None
        if config not in self.configs:
            self.configs[config] = read_paths_config(self.layout, config, depth=0)
        return self.configs[config]


DECLARATION_SOURCES = {".d.ts": (".ts", ".tsx", ".js", ".jsx"), ".d.mts": (".mts", ".mjs"), ".d.cts": (".cts", ".cjs")}
"""A declaration file's suffix → the suffixes of the sources tsc emits it from."""

JSON_STRING = r'"(?:\\.|[^"\\])*"'
JSON_COMMENT = re.compile(JSON_STRING + r"|//[^\n]*|/\*.*?\*/", re.S)
TRAILING_COMMA = re.compile(JSON_STRING + r"|,(\s*[}\]])")

_caches: "WeakKeyDictionary[RepoLayout, ManifestCache]" = WeakKeyDictionary()


def manifests(layout: RepoLayout) -> ManifestCache:
    cache = _caches.get(layout)
    if cache is None:
        cache = _caches[layout] = ManifestCache(layout)
    return cache


def read_package(layout: RepoLayout, path: str) -> PackageManifest | None:
    data = json_object(load_json(layout.read_text(path)))
    if data is None:
        return None
    name = data.get("name")
    version = data.get("version")
    return PackageManifest(
        path=path,
        root=path.rpartition("/")[0],
        name=name if isinstance(name, str) else "",
        version=version if isinstance(version, str) else "",
        data=data,
    )


def nearest_config(layout: RepoLayout, file: str) -> str | None:
    ts_config = layout.nearest(file, "tsconfig.json")
    js_config = layout.nearest(file, "jsconfig.json")
    if ts_config is None or js_config is None:
        return ts_config or js_config
    # the deeper one is closer to the file
    return ts_config if ts_config.count("/") >= js_config.count("/") else js_config


def read_paths_config(layout: RepoLayout, path: str, depth: int) -> PathsConfig | None:
    data = json_object(load_json(layout.read_text(path)))
    if data is None:
        return None
    directory = path.rpartition("/")[0]
    inherited: PathsConfig | None = None
    extends: Any = data.get("extends")
    parents: list[Any] = (
        [extends] if isinstance(extends, str) else cast(list[Any], extends) if isinstance(extends, list) else []
    )
    for parent in parents:
        target = extended_config(layout, directory, parent) if depth <= 8 else None
        if target is not None:
            inherited = read_paths_config(layout, target, depth + 1) or inherited
    options = json_object(data.get("compilerOptions")) or {}
    base_url = inherited.base_url if inherited else None
    raw_base = options.get("baseUrl")
    if isinstance(raw_base, str):
        base_url = normalize(posixpath.join(directory, raw_base))
    paths = inherited.paths if inherited else ()
    raw_paths = json_object(options.get("paths"))
    if raw_paths is not None:
        # Substitutions are relative to baseUrl when there is one, else to this tsconfig.
        anchor = base_url if base_url is not None else directory
        entries: list[tuple[str, tuple[str, ...]]] = []
        for pattern, targets in raw_paths.items():
            if isinstance(targets, list):
                substitutions = [t for t in cast(list[Any], targets) if isinstance(t, str)]
                entries.append((pattern, tuple(normalize(posixpath.join(anchor, t)) for t in substitutions)))
        paths = tuple(entries)
    emitted = {name: inherited_value for name, inherited_value in (
        ("outDir", inherited.out_dir if inherited else None),
        ("rootDir", inherited.root_dir if inherited else None),
        ("declarationDir", inherited.declaration_dir if inherited else None),
    )}  # fmt: skip
    for name in emitted:
        raw = options.get(name)
        if isinstance(raw, str):
            emitted[name] = normalize(posixpath.join(directory, raw))
    return PathsConfig(path=path, base_url=base_url, paths=paths, out_dir=emitted["outDir"],
                       root_dir=emitted["rootDir"], declaration_dir=emitted["declarationDir"])  # fmt: skip


def tsconfig_includes(layout: RepoLayout, path: str) -> list[tuple[str, list[str]]]:
    """The `include` and `files` entries a tsconfig's program is made of, each with the directory
    they are relative to: its own, or those of the tsconfig it extends (relative `extends` only),
    which it inherits key by key when it does not set them. Empty when neither is set anywhere
    (then everything under the tsconfig's directory is included)."""
    found: list[tuple[str, list[str]]] = []
    wanted = {"include", "files"}
    for _ in range(9):
        data = json_object(load_json(layout.read_text(path)))
        if data is None:
            break
        directory = path.rpartition("/")[0]
        for key in sorted(wanted & data.keys()):
            entries = data[key]
            if isinstance(entries, list):
                found.append((directory, [e for e in cast(list[Any], entries) if isinstance(e, str)]))
            wanted.discard(key)
        extends: Any = data.get("extends")
        parents: list[Any] = cast(list[Any], extends) if isinstance(extends, list) else [extends]
        target = extended_config(layout, directory, parents[0]) if wanted and parents else None
        if target is None:
            break
        path = target
    return found


def extended_config(layout: RepoLayout, directory: str, parent: object) -> str | None:
    """The tree's tsconfig an `extends` entry written in `directory` names, or None: a package's
    tsconfig (`@tsconfig/node20`) is outside the tree."""
    if not isinstance(parent, str) or not parent.startswith("."):
        return None
    target = posixpath.normpath(posixpath.join(directory, parent))
    if not target.endswith(".json"):
        target = target + ".json" if f"{target}.json" in layout.paths else f"{target}/tsconfig.json"
    return target if target in layout.paths else None


def json_object(value: Any) -> dict[str, Any] | None:
    """`value` when it is a JSON object (keys are always strings in JSON)."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


def normalize(path: str) -> str:
    joined = posixpath.normpath(path)
    return "" if joined == "." else joined


def load_json(text: str | None) -> Any:
    """JSON as tsconfig and package.json are really written: comments and trailing commas allowed."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return json.loads(strip_json_comments(text))
    except ValueError:
        return None


def strip_json_comments(text: str) -> str:
    """Drop // and /* */ comments outside strings, then commas right before } or ]."""
    without_comments = JSON_COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    return TRAILING_COMMA.sub(lambda m: m.group(0) if m.group(0).startswith('"') else m.group(1), without_comments)
