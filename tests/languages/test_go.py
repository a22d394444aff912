"""The Go adapter: what it extracts from one file, and how it finds modules and packages."""

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kivgraph.indexing import index_repository
from kivgraph.languages import ModuleTarget
from kivgraph.languages.go.adapter import GoAdapter
from kivgraph.languages.syntax import Declaration, FileSyntax, Import, Reference, Role
from kivgraph.model import Language, Package, SymbolKind
from tests.languages.helpers import fixture_layout, qualified, refs
from tests.scip.analyzers import require

FIXTURES = Path(__file__).parent.parent / "fixtures" / "go"
ADAPTER = GoAdapter()


def parse_fixture(case: str, path: str) -> FileSyntax:
    return ADAPTER.parse(path, (FIXTURES / case / path).read_bytes())


def parse_text(text: str, path: str = "x.go") -> FileSyntax:
    return ADAPTER.parse(path, text.encode("utf-8"))


def bound_in(syntax: FileSyntax, decl: Declaration) -> dict[str, str]:
    return {b.name: b.type_name for b in syntax.bindings if decl.start_byte <= b.start_byte < decl.end_byte}


# ---- declarations


def test_methods_are_named_through_their_receiver_type() -> None:
    names = qualified(parse_fixture("server", "server.go"))

    assert names["Server.Run"].kind is SymbolKind.METHOD
    assert names["Server.Run"].owner == "Server"
    assert names["Server.handle"].signature == "func (s *Server) handle(w http.ResponseWriter, r *http.Request)"
    assert qualified(parse_text("package p\nfunc (l *List[T]) Push(v T) {}\n"))["List.Push"].owner == "List"


def test_struct_fields_and_interface_methods_nest_in_their_type() -> None:
    server = qualified(parse_fixture("server", "server.go"))
    handler = qualified(parse_fixture("server", "handler.go"))

    assert server["Server.store"].kind is SymbolKind.FIELD
    assert server["Server.store"].type_name == "store.Store"
    assert server["Server.hooks"].signature == "hooks []Hook"
    assert handler["Handler.Name"].kind is SymbolKind.METHOD
    assert handler["Base.Name"].owner == "Base"


def test_fields_and_package_variables_carry_the_type_their_syntax_states() -> None:
    syntax = parse_text("package p\nvar (\n\tdb *sql.DB\n\tsrv = &Server{}\n\tn = count()\n)\n")
    names = qualified(syntax)

    assert (names["db"].type_name, names["srv"].type_name, names["n"].type_name) == ("sql.DB", "Server", "")
    assert qualified(parse_fixture("server", "server.go"))["Server.hooks"].type_name == ""


def test_each_kind_of_type_declaration_is_told_apart() -> None:
    names = qualified(parse_fixture("server", "server.go"))

    assert names["Server"].kind is SymbolKind.STRUCT
    assert names["Hook"].kind is SymbolKind.TYPE
    assert names["Addr"].kind is SymbolKind.TYPE_ALIAS
    assert qualified(parse_fixture("server", "handler.go"))["Handler"].kind is SymbolKind.INTERFACE
    assert names["Server"].signature == "type Server struct"


def test_names_sharing_one_field_or_spec_get_ranges_that_do_not_nest() -> None:
    names = qualified(parse_fixture("server", "server.go"))
    addr, host = names["Server.addr"], names["Server.host"]

    assert (addr.name_line, addr.name_column, host.name_column) == (39, 1, 7)
    assert addr.end_byte <= host.start_byte
    constants = qualified(parse_text("package p\nconst A, B = 1, 2\n"))
    assert constants["A"].end_byte <= constants["B"].start_byte


def test_a_lone_spec_spans_its_keyword_and_grouped_specs_span_themselves() -> None:
    names = qualified(parse_fixture("server", "server.go"))

    assert (names["DefaultAddr"].start_line, names["DefaultAddr"].signature) == (12, 'const DefaultAddr = ":8080"')
    assert (names["MaxBody"].start_line, names["MaxBody"].end_line) == (17, 17)
    assert names["MaxBody"].doc == "MaxBody caps request bodies."
    assert names["maxRetries"].kind is SymbolKind.CONSTANT
    assert names["fallback"].kind is SymbolKind.VARIABLE


def test_the_doc_is_the_first_paragraph_above_and_directives_are_not_doc() -> None:
    names = qualified(parse_fixture("server", "server.go"))

    assert names["Server"].doc == "Server serves requests."
    assert names["Server"].start_line == 35
    assert names["NewServer"].doc == "NewServer builds a server over a store."
    assert names["notFound"].doc == ""
    assert qualified(parse_fixture("server", "cmd/serve/main.go"))["banner"].doc == ""


def test_exported_means_capitalised() -> None:
    names = qualified(parse_fixture("server", "server.go"))

    assert names["NewServer"].exported and names["Server.Run"].exported and names["MaxBody"].exported
    assert not names["notFound"].exported
    assert not names["Server.handle"].exported
    assert not names["Server.store"].exported


def test_local_types_nest_in_their_function_and_locals_are_not_declarations() -> None:
    syntax = parse_text("package p\nfunc f() {\n\ttype pair struct{ a int }\n\tvar x pair\n\t_ = x\n}\n")

    assert set(qualified(syntax)) == {"f", "f.pair", "f.pair.a"}


def test_the_package_clause_is_recorded() -> None:
    assert parse_fixture("server", "cmd/serve/main.go").package_clause == "main"


# ---- references


def test_embedded_fields_and_interfaces_are_embeds() -> None:
    assert refs(parse_fixture("server", "server.go"), 36) == [("Base", Role.EMBEDS)]
    assert refs(parse_fixture("server", "server.go"), 37) == [("http.ServeMux", Role.EMBEDS)]
    assert refs(parse_fixture("server", "handler.go"), 7) == [("http.Handler", Role.EMBEDS)]


def test_a_package_selector_keeps_the_package_as_its_head() -> None:
    syntax = parse_fixture("server", "cmd/serve/main.go")

    assert refs(syntax, 17) == [("st.Open", Role.CALL)]
    assert refs(syntax, 23) == [
        ("server.NewServer", Role.CALL),
        ("db", Role.CALLBACK),
        ("server.DefaultAddr", Role.CALLBACK),
    ]
    assert ("TrimSpace", Role.CALL) in refs(syntax, 24)


def test_function_values_passed_assigned_or_returned_say_so() -> None:
    syntax = parse_fixture("server", "server.go")

    assert ("srv.handle", Role.CALLBACK) in refs(syntax, 53)
    assert refs(syntax, 24) == [("notFound", Role.ASSIGN)]
    assert refs(parse_text("package p\nfunc f() func() { return g }\n"), 2) == [("g", Role.RETURN)]


def test_types_in_signatures_and_composite_literals_are_type_uses_and_struct_keys_are_not_references() -> None:
    syntax = parse_fixture("server", "server.go")

    assert refs(syntax, 50) == [("store.Store", Role.TYPE), ("Addr", Role.TYPE), ("Server", Role.TYPE)]
    assert refs(syntax, 51) == [("Server", Role.TYPE), ("s", Role.ASSIGN), ("addr", Role.ASSIGN)]


def test_keys_of_map_and_array_literals_are_values() -> None:
    syntax = parse_text('package p\nvar m = map[string]int{key: 1}\nvar a = [...]string{OpAdd: "add"}\n')

    assert ("key", Role.READ) in refs(syntax, 2)
    assert ("OpAdd", Role.READ) in refs(syntax, 3)


def test_selectors_on_unnamed_receivers_have_an_empty_head() -> None:
    syntax = parse_text("package p\nfunc f() {\n\tg().Close()\n\txs[0].Run()\n}\n")

    assert refs(syntax, 3) == [("g", Role.CALL), (".Close", Role.CALL)]
    assert refs(syntax, 4) == [("xs", Role.READ), (".Run", Role.CALL)]


def test_type_parameters_are_not_references_to_anything_outside() -> None:
    syntax = parse_text("package p\ntype List[T any] struct {\n\tnext *List[T]\n\tv T\n}\n")

    assert ("T", Role.TYPE) not in refs(syntax)
    assert ("List", Role.TYPE) in refs(syntax, 3)


def test_long_operator_chains_keep_every_operand() -> None:
    chain = " + ".join(f"v{i}" for i in range(2000))
    syntax = parse_text(f"package p\nvar s = {chain}\n")

    assert len([ref for ref in syntax.references if ref.role is Role.READ]) == 2000


def test_the_blank_identifier_is_neither_bound_nor_referenced() -> None:
    syntax = parse_text("package p\nfunc f() {\n\t_, err := g()\n\t_ = err\n}\n")

    assert [b.name for b in syntax.bindings] == ["err"]
    assert ("_", Role.READ) not in refs(syntax)


# ---- bindings


def test_receivers_parameters_results_and_locals_are_bindings_with_their_types() -> None:
    syntax = parse_fixture("server", "server.go")
    names = qualified(syntax)

    assert bound_in(syntax, names["NewServer"]) == {"s": "store.Store", "addr": "Addr", "srv": "Server"}
    assert bound_in(syntax, names["Server.handle"]) == {
        "s": "Server",
        "w": "http.ResponseWriter",
        "r": "http.Request",
        "value": "",
        "hook": "",
    }
    results = parse_text("package p\nfunc f() (n int, err error) { var t T; u := new(U); return }\n")
    assert {b.name: b.type_name for b in results.bindings} == {"n": "int", "err": "error", "t": "T", "u": "U"}


def test_parameters_of_function_types_and_interface_methods_are_not_bindings() -> None:
    assert parse_fixture("server", "handler.go").bindings[0].name == "b"
    assert parse_text("package p\ntype F func(x int)\ntype I interface{ M(y int) }\n").bindings == ()


def test_a_package_level_closure_opens_a_scope_for_its_parameters() -> None:
    syntax = parse_text("package p\nvar h = func(w Writer) { w.Write(nil) }\n")

    assert qualified(syntax)["h"].opens_scope
    assert [(b.name, b.type_name) for b in syntax.bindings] == [("w", "Writer")]


# ---- imports


def test_imports_bind_their_alias_or_the_package_name_of_the_path() -> None:
    syntax = parse_fixture("server", "cmd/serve/main.go")

    assert [(i.module, i.local_name, i.wildcard) for i in syntax.imports] == [
        ("embed", None, False),
        ("log", "log", False),
        ("strings", None, True),
        ("example.com/server", "server", False),
        ("example.com/server/internal/cache", "cache", False),
        ("example.com/server/internal/store", "st", False),
    ]
    assert syntax.imports[5] == Import(
        "example.com/server/internal/store", None, "st", 10, 1, syntax.imports[5].start_byte
    )
    versions = parse_text(
        'package p\nimport (\n\t"gopkg.in/yaml.v3"\n\t"github.com/a/b/v2"\n\t"github.com/x/go-sql"\n)\n'
    )
    assert [i.local_name for i in versions.imports] == ["yaml", "b", "sql"]


# ---- modules and packages


def test_an_import_path_of_the_module_resolves_to_its_directory_without_tests() -> None:
    layout = fixture_layout(FIXTURES / "server")

    assert ADAPTER.resolve_module("example.com/server/internal/store", "cmd/serve/main.go", layout) == ModuleTarget(
        files=("internal/store/store.go",)
    )
    assert ADAPTER.resolve_module("example.com/server", "cmd/serve/main.go", layout) == ModuleTarget(
        files=("handler.go", "server.go")
    )


def test_import_paths_outside_the_modules_are_external_and_missing_ones_are_not_found() -> None:
    layout = fixture_layout(FIXTURES / "server")

    assert ADAPTER.resolve_module("net/http", "server.go", layout) == ModuleTarget(external="net/http")
    assert ADAPTER.resolve_module("github.com/x/y", "server.go", layout) == ModuleTarget(external="github.com/x/y")
    assert ADAPTER.resolve_module("example.com/server/nowhere", "server.go", layout) == ModuleTarget(
        reason="PACKAGE_NOT_FOUND"
    )


def test_a_nested_module_owns_the_import_paths_under_it() -> None:
    layout = fixture_layout(FIXTURES / "modules")

    assert ADAPTER.resolve_module("example.com/root/tools/lint", "app/app.go", layout) == ModuleTarget(
        files=("tools/lint/lint.go",)
    )
    assert ADAPTER.resolve_module("example.com/root/missing", "app/app.go", layout).reason == "PACKAGE_NOT_FOUND"
    packages = ADAPTER.packages(layout, ["app/app.go", "tools/lint/lint.go"])
    assert packages["tools/lint/lint.go"] == Package(
        id="go:example.com/root/tools/lint",
        language=Language.GO,
        name="example.com/root/tools example.com/root/tools/lint",
        root="tools/lint",
        manifest="tools/go.mod",
    )
    assert packages["app/app.go"].name == "example.com/root example.com/root/app"


def test_files_of_one_directory_share_a_package_named_by_module_and_import_path() -> None:
    layout = fixture_layout(FIXTURES / "server")
    packages = ADAPTER.packages(layout, ["server.go", "handler.go", "cmd/serve/main.go"])

    assert packages["server.go"] == packages["handler.go"]
    assert packages["server.go"].id == "go:example.com/server"
    assert packages["server.go"].name == "example.com/server example.com/server"
    assert packages["cmd/serve/main.go"].root == "cmd/serve"
    assert ADAPTER.packages(fixture_layout(FIXTURES / "broken"), ["broken.go"]) == {}


def test_same_named_functions_of_two_packages_stay_apart() -> None:
    layout = fixture_layout(FIXTURES / "server")
    store_open = qualified(parse_fixture("server", "internal/store/store.go"))["Open"]
    cache_open = qualified(parse_fixture("server", "internal/cache/cache.go"))["Open"]

    assert store_open.signature == "func Open(path string) (*Store, error)"
    assert cache_open.signature == "func Open(size int) Cache"
    assert (
        ADAPTER.packages(layout, ["internal/store/store.go", "internal/cache/cache.go"])["internal/cache/cache.go"].id
        == "go:example.com/server/internal/cache"
    )


def test_build_constrained_files_are_parsed_and_each_declares_its_variant() -> None:
    linux = qualified(parse_fixture("buildtags", "platform_linux.go"))
    other = qualified(parse_fixture("buildtags", "platform_other.go"))

    assert linux["platform"].start_line == other["platform"].start_line == 5
    assert refs(parse_fixture("buildtags", "tags.go"), 5) == [("platform", Role.CALL)]


# ---- robustness


def test_a_syntax_error_is_reported_and_the_rest_of_the_file_still_counts() -> None:
    syntax = parse_fixture("broken", "broken.go")

    assert [problem.line for problem in syntax.problems] == [6]
    assert {"Fine", "Unfinished", "StillCounts", "StillCounts.Value", "StillCounts.Double"} <= set(qualified(syntax))
    assert ("Fine", Role.CALL) in refs(syntax, 13)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00\xff\xfe garbage \x80", b"package p\nfunc \xff\xfe() { x := \xc3\x28 }\n", b"package", b"{" * 5000],
)
def test_parse_survives_garbage_bytes_and_invalid_utf8(data: bytes) -> None:
    syntax = ADAPTER.parse("junk.go", data)

    assert syntax.path == "junk.go"
    assert all(isinstance(ref, Reference) for ref in syntax.references)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_parse_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    ADAPTER.parse("random.go", b"package p\n\nfunc (s *S) F() { s.G() }\n" + data)


# ---- embedded fields and package imports, resolved


def named_edges(generation) -> set[tuple[str, str, str, str]]:
    names = {s.key: f"{s.file}:{s.qualified_name}" for s in generation.symbols}
    return {(names[e.source], e.kind.value, names[e.target], e.confidence.value) for e in generation.edges}


def test_an_embedded_field_is_a_field_named_by_its_types_last_name() -> None:
    syntax = parse_text("package p\n\ntype S struct {\n\tBase\n\t*Other\n\tlog.Logger\n\t*log.Writer\n\tList[int]\n}\n")
    fields = {d.name: d for d in syntax.declarations if d.kind == SymbolKind.FIELD}
    assert set(fields) == {"Base", "Other", "Logger", "Writer", "List"}
    assert (fields["Logger"].name_line, fields["Logger"].name_column) == (6, 5)  # at `Logger`, as scip-go puts it
    assert (fields["Writer"].type_name, fields["Other"].type_name) == ("log.Writer", "Other")
    assert qualified(syntax)["S.Base"] is fields["Base"]


def test_an_embedded_field_is_reached_through_a_selector_and_its_struct_still_embeds(make_repo) -> None:
    repo = make_repo(
        {
            "go.mod": "module example.com/m\n\ngo 1.22\n",
            "log/log.go": "package log\n\ntype Logger struct{}\n\nfunc (l *Logger) Print() {}\n",
            "log/level.go": "package log\n\nconst Debug = 1\n",
            "server.go": (
                'package server\n\nimport "example.com/m/log"\n\n'
                "type Server struct {\n\t*log.Logger\n}\n\n"
                "func (s *Server) Run() {\n\ts.Logger.Print()\n\t_ = s.Logger\n}\n"
            ),
        }
    )
    edges = named_edges(index_repository(str(repo.path)))
    assert ("server.go:Server", "EMBEDS", "log/log.go:Logger", "CANDIDATE") in edges
    assert ("server.go:Server.Logger", "METHOD_OF", "server.go:Server", "STRUCTURAL_CERTAIN") in edges
    assert ("server.go:Server.Run", "REFERENCES", "server.go:Server.Logger", "CANDIDATE") in edges
    assert ("server.go:Server.Run", "CALLS_DIRECT", "log/log.go:Logger.Print", "CANDIDATE") in edges
    assert not any(source == "server.go:Server.Logger" and kind == "EMBEDS" for source, kind, _, _ in edges)
    # A package of this repository has no symbol: importing it reaches each of its files.
    assert ("server.go:server", "IMPORTS_SYMBOL", "log/log.go:log.log", "CANDIDATE") in edges
    assert ("server.go:server", "IMPORTS_SYMBOL", "log/level.go:log.level", "CANDIDATE") in edges


def test_scip_go_binds_its_embedded_field_symbols_to_the_embedded_field_declarations(make_repo) -> None:
    require("scip-go")
    repo = make_repo(name="server")
    shutil.copytree(FIXTURES / "server", repo.path, dirs_exist_ok=True)
    repo.commit(message="fixture")
    generation = index_repository(str(repo.path), run_analyzers=True)
    assert generation.invisible_scopes == ()
    edges = named_edges(generation)
    exact = "EXACT_TYPECHECKED"
    assert ("server.go:Server", "EMBEDS", "server.go:Base", exact) in edges
    assert ("server.go:NewServer", "REFERENCES", "server.go:Server.ServeMux", exact) in edges
    assert ("server.go:Server.Base", "METHOD_OF", "server.go:Server", "STRUCTURAL_CERTAIN") in edges
    assert ("cmd/serve/main.go:cmd.serve.main", "IMPORTS_SYMBOL", "handler.go:handler", "CANDIDATE") in edges
    assert ("cmd/serve/main.go:cmd.serve.main", "IMPORTS_SYMBOL", "server.go:server", "CANDIDATE") in edges
