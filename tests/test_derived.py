"""The derived `rust:` repository: a toolchain's standard library indexed as a generation of its own."""

import shutil

import pytest
from click.testing import CliRunner

from kivgraph.cli import cli
from kivgraph.derived import RustToolchainError, index_rust_library, library_of, rust_release
from kivgraph.model import Confidence, EdgeKind, Provenance
from kivgraph.scip.ingest import rust_library_alias
from kivgraph.store import read_file
from kivgraph.store.codec import decode
from tests.conftest import FIXTURES
from tests.scip.analyzers import require

SYSROOT = FIXTURES / "derived" / "sysroot"


def test_the_library_is_indexed_as_rust_release_with_exact_edges_and_the_sysroot_untouched(tmp_path):
    require("rust-analyzer")
    sysroot = tmp_path / "sysroot"
    shutil.copytree(SYSROOT, sysroot)
    before = sorted(p.relative_to(sysroot) for p in sysroot.rglob("*"))
    generation = index_rust_library(str(sysroot))
    assert generation.header.repository == f"rust:{rust_release()}"
    assert (generation.header.commit, generation.header.tree, generation.header.remote_url) == ("", "", "")
    names = {s.key: s.qualified_name for s in generation.symbols}
    edges = {(names[e.source], e.kind, names[e.target], e.confidence, e.provenance) for e in generation.edges}
    exact = (Confidence.EXACT_TYPECHECKED, Provenance.RUST_ANALYZER_SCIP)
    assert ("Stack::size", EdgeKind.CALLS_DIRECT, "double", *exact) in edges
    assert generation.invisible_scopes == ()
    assert sorted(p.relative_to(sysroot) for p in sysroot.rglob("*")) == before  # no target/ left behind


def test_the_cli_writes_the_derived_generation_where_it_is_told(tmp_path):
    out = tmp_path / "std.kgen"
    result = CliRunner().invoke(cli, ["index-rust-std", "--sysroot", str(SYSROOT), "--out", str(out), "--no-analyzers"])
    assert result.exit_code == 0, result.output
    assert f"Indexed rust:{rust_release()} at the toolchain" in result.output
    generation = decode(read_file(str(out)), str(out))
    assert {s.file for s in generation.symbols} >= {"basics/src/lib.rs", "collections/src/lib.rs"}


def test_a_toolchain_without_the_library_source_says_how_to_get_it(tmp_path):
    with pytest.raises(RustToolchainError, match="rustup component add rust-src"):
        library_of(str(tmp_path))
    result = CliRunner().invoke(cli, ["index-rust-std", "--sysroot", str(tmp_path)])
    assert result.exit_code == 1 and "rustup component add rust-src" in result.output


@pytest.mark.parametrize(
    ("symbol", "alias"),
    [
        (
            "rust-analyzer cargo core https://github.com/rust-lang/rust/library/core clone/Clone#",
            "rust-analyzer cargo core 0.0.0 clone/Clone#",
        ),
        ("rust-analyzer cargo core 0.0.0 clone/Clone#", ""),
        ("rust-analyzer cargo serde 1.0.0 Serialize#", ""),
        ("rust-analyzer cargo core https://github.com/rust-lang/rust/library/alloc vec/Vec#", ""),
        ("scip-go gomod std https://github.com/rust-lang/rust/library/std x/", ""),
        ("local 3", ""),
    ],
)
def test_the_two_spellings_of_a_standard_library_symbol_are_one(symbol: str, alias: str):
    assert rust_library_alias(symbol) == alias
