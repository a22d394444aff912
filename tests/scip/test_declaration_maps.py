"""Declaration maps read as tsc writes them, and refused clearly when they are not source maps."""

import json

import pytest

from kivgraph.scip.declaration_maps import DeclarationMap, Origin, SourceMapError
from tests.conftest import FIXTURES

UNITS = FIXTURES / "exact" / "typescript" / "packages" / "units"
MAP_PATH = "packages/units/dist/convert.d.ts.map"


def test_a_declared_name_leads_to_the_same_name_in_the_source():
    declaration_map = DeclarationMap.parse((UNITS / "dist" / "convert.d.ts.map").read_bytes(), MAP_PATH)
    dts = (UNITS / "dist" / "convert.d.ts").read_text(encoding="utf-8").splitlines()
    source = (UNITS / "src" / "convert.ts").read_text(encoding="utf-8").splitlines()
    for declared in ("function toMeters", "interface Measured", "class Length"):
        name = declared.split()[1]
        line = next(i for i, text in enumerate(dts) if declared in text)
        origin = declaration_map.origin(line, dts[line].index(name))
        assert origin is not None and origin.path == "packages/units/src/convert.ts"
        assert source[origin.line][origin.column :].startswith(name), (name, origin)


def test_positions_before_any_segment_or_past_the_end_have_no_origin():
    declaration_map = DeclarationMap.parse((UNITS / "dist" / "convert.d.ts.map").read_bytes(), MAP_PATH)
    assert declaration_map.origin(10_000, 0) is None
    assert declaration_map.origin(-1, 0) is None


def test_sources_resolve_beside_the_map_with_its_source_root():
    data = json.dumps({"version": 3, "sources": ["a.ts"], "sourceRoot": "../src", "mappings": "AAAA,EAAE"})
    declaration_map = DeclarationMap.parse(data.encode(), "lib/dist/a.d.ts.map")
    assert declaration_map.origin(0, 3) == Origin("lib/src/a.ts", 0, 2)


def test_sources_outside_the_repository_are_dropped():
    data = json.dumps({"version": 3, "sources": ["../../../x.ts"], "mappings": "AAAA"})
    assert DeclarationMap.parse(data.encode(), "a/b.d.ts.map").origin(0, 0) is None


@pytest.mark.parametrize(
    "data, problem",
    [
        (b"\xff not json", "not JSON"),
        (b'{"version": 2, "mappings": ""}', "not a version 3"),
        (b"[3]", "not a version 3"),
        (b'{"version": 3, "mappings": 7, "sources": []}', "wrong type"),
        (b'{"version": 3, "mappings": "A*AA", "sources": ["a.ts"]}', "invalid base64"),
        (b'{"version": 3, "mappings": "AAAg", "sources": ["a.ts"]}', "end inside a number"),
    ],
)
def test_a_broken_map_is_refused_naming_the_problem(data: bytes, problem: str):
    with pytest.raises(SourceMapError, match=problem):
        DeclarationMap.parse(data, "x.d.ts.map")
