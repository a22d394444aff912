"""Where a TypeScript/JavaScript module specifier leads, and which npm package a file belongs to.

Relative specifiers follow Node/TypeScript file lookup (extensions, `.js` written for a `.ts`
source, `index` files); bare specifiers go through tsconfig `paths`/`baseUrl`, then the packages
of this tree (workspaces), and are otherwise external packages. Reads manifests via `manifests`.
"""

import posixpath
import re
from collections.abc import Iterator
from typing import Any, cast

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.languages.typescript.manifests import PackageManifest, PathsConfig, json_object, manifests, normalize

SOURCE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
TS_FOR_JS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx",),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
}
TS_IMPORTERS = (".ts", ".tsx", ".mts", ".cts")
CONDITIONS = ("source", "types", "typescript", "import", "module", "default", "require", "node", "browser")
"""Export conditions in the order that best finds source files in a checkout."""
ENTRY_FIELDS = ("source", "types", "typings", "module", "main")
BUILD_DIRS = ("dist/", "lib/", "build/", "out/", "esm/", "cjs/", "es/")
NOT_RESOLVED = "MODULE_NOT_RESOLVED"
AMBIGUOUS = "AMBIGUOUS_PACKAGE_PROVIDER"


def resolve(spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
    prefer_ts = from_file.endswith(TS_IMPORTERS)
    if spec.startswith(("./", "../")) or spec in (".", ".."):
        directory = from_file.rpartition("/")[0]
        written = spec.split("?", 1)[0]
        base = posixpath.normpath(posixpath.join(directory, written))
        # `./v5/` names the directory alone (its index), never the file `v5.ts` beside it.
        only_directory = written.endswith("/")
        found = (None if base == ".." or base.startswith("../")
                 else find_file(layout, normalize(base), prefer_ts, only_directory))  # fmt: skip
        return ModuleTarget(files=(found,)) if found else ModuleTarget(reason=NOT_RESOLVED)
    if spec.startswith("/") or not spec:
        return ModuleTarget(reason=NOT_RESOLVED)
    if "://" in spec:
        return ModuleTarget(external=spec)
    if spec.startswith("node:"):
        return ModuleTarget(external="node:" + spec[5:].split("/", 1)[0])
    cache = manifests(layout)
    if spec.startswith("#"):
        found = subpath_import(layout, spec, from_file, prefer_ts)
        return ModuleTarget(files=(found,)) if found else ModuleTarget(reason=NOT_RESOLVED)
    config = cache.paths_config(from_file)
    claimed_by_paths = False
    if config is not None:
        claimed_by_paths = any(subs != ("*",) for subs, _ in matching_paths(config.paths, spec))
        for mapped in mapped_by_config(config, spec):
            found = find_file(layout, mapped, prefer_ts)
            if found:
                return ModuleTarget(files=(found,))
    name, subpath = package_name(spec)
    candidates = cache.workspace().get(name, ())
    if len(candidates) > 1:
        # twins: a package importing its own name means itself
        own = [m for m in candidates if from_file.startswith(f"{m.root}/" if m.root else "")]
        candidates = tuple(own[-1:]) if own else candidates
    if len(candidates) > 1:
        return ModuleTarget(reason=AMBIGUOUS)
    if candidates:
        found = package_file(layout, candidates[0], subpath, prefer_ts)
        return ModuleTarget(files=(found,)) if found else ModuleTarget(reason=NOT_RESOLVED)
    if claimed_by_paths:
        return ModuleTarget(reason=NOT_RESOLVED)
    return ModuleTarget(external=name)


WRITTEN_IMPORT = re.compile(rb"""(?:\bfrom|\bimport|\brequire)\s*\(?\s*(['"])([^'"\n]+)\1""")
"""A module specifier as a TypeScript or JavaScript file writes it: `from 'x'` (imports and
re-exports), `import 'x'`, `import('x')`, `require('x')` (and `import x = require('x')`)."""


def written_specifiers(data: bytes) -> set[str]:
    """Every module specifier a file writes (WRITTEN_IMPORT), resolved or not."""
    return {hit.group(2).decode("utf-8", "replace") for hit in WRITTEN_IMPORT.finditer(data)}


def package_name(spec: str) -> tuple[str, str]:
    """`@scope/pkg/sub/path` → ("@scope/pkg", "sub/path"); `lodash/fp` → ("lodash", "fp")."""
    if spec.startswith("@"):
        parts = spec.split("/", 2)
        return "/".join(parts[:2]), parts[2] if len(parts) > 2 else ""
    name, _, subpath = spec.partition("/")
    return name, subpath


def candidates(base: str, prefer_ts: bool, only_directory: bool = False) -> Iterator[str]:
    """Files a module path may name, in lookup order (`only_directory`: its index files alone)."""
    prefix = f"{base}/" if base else ""
    if only_directory:
        yield from (f"{prefix}index{ext}" for ext in SOURCE_EXTENSIONS)
        return
    ts_versions: list[str] = []
    for js_ext, ts_exts in TS_FOR_JS.items():
        if base.endswith(js_ext):
            stem = base[: -len(js_ext)]
            ts_versions = [stem + ext for ext in ts_exts]
            break
    if prefer_ts:
        yield from ts_versions
    yield base
    if not prefer_ts:
        yield from ts_versions
    for ext in SOURCE_EXTENSIONS:
        yield base + ext
    for ext in SOURCE_EXTENSIONS:
        yield f"{prefix}index{ext}"


def find_file(layout: RepoLayout, base: str, prefer_ts: bool, only_directory: bool = False) -> str | None:
    paths = layout.paths
    for candidate in candidates(base, prefer_ts, only_directory):
        if candidate in paths:
            return candidate
    if base in layout.dirs:
        manifest_path = f"{base}/package.json" if base else "package.json"
        if manifest_path in paths:
            manifest = manifests(layout).package(manifest_path)
            if manifest is not None:
                return package_file(layout, manifest, "", prefer_ts)
    return None


def find_built_or_source(layout: RepoLayout, root: str, target: str, prefer_ts: bool) -> str | None:
    """A manifest target (`./dist/index.js`), or its source when the build output is not checked in."""
    relative = normalize(target.removeprefix("./"))
    found = find_file(layout, normalize(posixpath.join(root, relative)), prefer_ts)
    if found:
        return found
    stem = relative
    for ext in (".d.ts", ".d.mts", ".d.cts", *SOURCE_EXTENSIONS):
        if stem.endswith(ext):
            stem = stem[: -len(ext)]
            break
    for build_dir in BUILD_DIRS:
        if stem.startswith(build_dir):
            rest = stem[len(build_dir) :]
            for guess in (posixpath.join("src", rest), rest):
                found = find_file(layout, normalize(posixpath.join(root, guess)), prefer_ts)
                if found:
                    return found
    return None


def package_file(layout: RepoLayout, manifest: PackageManifest, subpath: str, prefer_ts: bool) -> str | None:
    root = manifest.root
    data = manifest.data
    target = exports_target(data.get("exports"), subpath)
    if target is not None:
        found = find_built_or_source(layout, root, target, prefer_ts)
        if found:
            return found
    if not subpath:
        for field in ENTRY_FIELDS:
            value = data.get(field)
            if isinstance(value, str):
                found = find_built_or_source(layout, root, value, prefer_ts)
                if found:
                    return found
        for guess in ("src/index", "index"):
            found = find_file(layout, normalize(posixpath.join(root, guess)), prefer_ts)
            if found:
                return found
        return None
    for guess in (subpath, posixpath.join("src", subpath)):
        found = find_file(layout, normalize(posixpath.join(root, guess)), prefer_ts)
        if found:
            return found
    return find_built_or_source(layout, root, subpath, prefer_ts)


def exports_target(exports: Any, subpath: str) -> str | None:
    """The file `package.json#exports` maps a subpath to (conditions resolved, `*` expanded)."""
    if exports is None:
        return None
    key = f"./{subpath}" if subpath else "."
    mapping = json_object(exports)
    if mapping is None:
        return pick_condition(exports) if key == "." else None
    if not any(k.startswith(".") for k in mapping):
        return pick_condition(mapping) if key == "." else None
    if key in mapping:
        return pick_condition(mapping[key])
    best: tuple[int, str] | None = None
    for pattern, value in mapping.items():
        if "*" not in pattern:
            continue
        head, _, tail = pattern.partition("*")
        if key.startswith(head) and key.endswith(tail) and len(key) >= len(head) + len(tail):
            star = key[len(head) : len(key) - len(tail)]
            target = pick_condition(value)
            if target is not None and (best is None or len(head) > best[0]):
                best = (len(head), target.replace("*", star))
    return best[1] if best else None


def pick_condition(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for item in cast(list[Any], value):
            found = pick_condition(item)
            if found is not None:
                return found
        return None
    conditions = json_object(value)
    if conditions is None:
        return None
    for condition in CONDITIONS:
        if condition in conditions:
            found = pick_condition(conditions[condition])
            if found is not None:
                return found
    for item in conditions.values():
        found = pick_condition(item)
        if found is not None:
            return found
    return None


def mapped_by_config(config: PathsConfig, spec: str) -> list[str]:
    """The module paths a tsconfig maps a bare specifier to, in the order resolution tries them:
    its `paths` substitutions (the most specific pattern first), then `baseUrl`."""
    mapped = [normalize(sub.replace("*", star, 1)) for subs, star in matching_paths(config.paths, spec) for sub in subs]
    if config.base_url is not None:
        mapped.append(normalize(posixpath.join(config.base_url, spec)))
    return mapped


def matching_paths(paths: tuple[tuple[str, tuple[str, ...]], ...], spec: str) -> list[tuple[tuple[str, ...], str]]:
    """tsconfig `paths` entries matching `spec`, longest prefix first, with what `*` stands for."""
    found: list[tuple[int, tuple[str, ...], str]] = []
    for pattern, substitutions in paths:
        if "*" not in pattern:
            if pattern == spec:
                found.append((len(pattern) + 1, substitutions, ""))
            continue
        head, _, tail = pattern.partition("*")
        if spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head) + len(tail):
            found.append((len(head), substitutions, spec[len(head) : len(spec) - len(tail)]))
    found.sort(key=lambda item: -item[0])
    return [(substitutions, star) for _, substitutions, star in found]


def subpath_import(layout: RepoLayout, spec: str, from_file: str, prefer_ts: bool) -> str | None:
    """`#internal/x` through the `imports` map of the closest package.json."""
    manifest_path = layout.nearest(from_file, "package.json")
    manifest = manifests(layout).package(manifest_path) if manifest_path else None
    if manifest is None:
        return None
    imports = json_object(manifest.data.get("imports"))
    if imports is None:
        return None
    as_exports = {f"./{key[1:]}": value for key, value in imports.items() if key[:1] == "#"}
    target = exports_target(as_exports, spec[1:])
    if target is None or not target.startswith("."):
        return None
    return find_built_or_source(layout, manifest.root, target, prefer_ts)
