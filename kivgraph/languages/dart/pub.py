"""Pub packages and Dart library URIs: which package a file belongs to, and where an import leads.

`pubspec.yaml` is read with a line parser for its top-level `name:` and `version:` only (no YAML
dependency). Reads go through `RepoLayout`; per-layout facts are cached weakly.
"""

import posixpath
from dataclasses import dataclass
from weakref import WeakKeyDictionary

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.model import Language, Package

MANIFEST = "pubspec.yaml"
NOT_RESOLVED = "MODULE_NOT_RESOLVED"


@dataclass(frozen=True, slots=True)
class Pubspec:
    name: str
    version: str
    directory: str
    manifest: str


_pubspecs: "WeakKeyDictionary[RepoLayout, dict[str, Pubspec | None]]" = WeakKeyDictionary()
_by_name: "WeakKeyDictionary[RepoLayout, dict[str, Pubspec]]" = WeakKeyDictionary()


def top_level_value(text: str, key: str) -> str:
    """The scalar of an unindented `key: value` line, without quotes or a trailing comment."""
    prefix = f"{key}:"
    for line in text.splitlines():
        if not line.startswith(prefix):
            continue
        value = line[len(prefix) :]
        if " #" in value:
            value = value[: value.index(" #")]
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        return value
    return ""


def pubspec_at(layout: RepoLayout, manifest: str) -> Pubspec | None:
    cache = _pubspecs.setdefault(layout, {})
    if manifest not in cache:
        text = layout.read_text(manifest)
        name = top_level_value(text, "name") if text is not None else ""
        cache[manifest] = (
            Pubspec(name, top_level_value(text or "", "version"), manifest.rpartition("/")[0], manifest)
            if name
            else None
        )
    return cache[manifest]


def pubspec_of(layout: RepoLayout, path: str) -> Pubspec | None:
    manifest = layout.nearest(path, MANIFEST)
    return pubspec_at(layout, manifest) if manifest else None


def pubspecs_by_name(layout: RepoLayout) -> dict[str, Pubspec]:
    found: dict[str, Pubspec] | None = _by_name.get(layout)
    if found is None:
        found = {}
        for path in sorted(layout.paths):
            if path == MANIFEST or path.endswith("/" + MANIFEST):
                spec = pubspec_at(layout, path)
                if spec is not None:
                    found.setdefault(spec.name, spec)
        _by_name[layout] = found
    return found


def packages(layout: RepoLayout, files: list[str]) -> dict[str, Package]:
    out: dict[str, Package] = {}
    for path in files:
        spec = pubspec_of(layout, path)
        if spec is not None:
            out[path] = Package(
                id=f"dart:{spec.name}",
                language=Language.DART,
                name=spec.name,
                root=spec.directory,
                manifest=spec.manifest,
                version=spec.version,
            )
    return out


def resolve_module(spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
    if spec.startswith("dart:"):
        return ModuleTarget(external=spec.split("/")[0])
    if spec.startswith("package:"):
        name, _, rest = spec[len("package:") :].partition("/")
        if not name or not rest:
            return ModuleTarget(reason=NOT_RESOLVED)
        own = pubspec_of(layout, from_file)
        target = own if own is not None and own.name == name else pubspecs_by_name(layout).get(name)
        if target is None:
            return ModuleTarget(external=name)
        path = posixpath.normpath(posixpath.join(target.directory, "lib", rest))
        return ModuleTarget(files=(path,)) if path in layout.paths else ModuleTarget(reason=NOT_RESOLVED)
    if ":" in spec.split("/")[0]:
        return ModuleTarget(reason=NOT_RESOLVED)  # another URI scheme: nothing of this tree
    path = posixpath.normpath(posixpath.join(from_file.rpartition("/")[0], spec))
    if path.startswith("../") or path == "..":
        return ModuleTarget(reason=NOT_RESOLVED)
    return ModuleTarget(files=(path,)) if path in layout.paths else ModuleTarget(reason=NOT_RESOLVED)
