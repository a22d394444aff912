"""`RustAdapter`: the Rust rules the shared resolver needs, stated as data, plus the three entry points.

Parsing lives in `extract.py`, crates and module files in `cargo.py`; this module only wires them.
"""

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.languages.rust import cargo
from kivgraph.languages.rust.extract import parse_rust
from kivgraph.languages.syntax import FileSyntax
from kivgraph.model import Language, Package

PRIMITIVE_TYPES = "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str Self"
PRELUDE = (
    "String Vec Option Some None Result Ok Err Box Default Clone Copy Send Sync Sized Unpin Drop "
    "Fn FnMut FnOnce Iterator IntoIterator DoubleEndedIterator ExactSizeIterator Extend FromIterator "
    "ToString ToOwned PartialEq Eq PartialOrd Ord AsRef AsMut Into From TryFrom TryInto Debug Hash "
    "drop std core alloc"
)
STD_MACROS = (
    "println print eprintln eprint format format_args write writeln vec assert assert_eq assert_ne "
    "debug_assert debug_assert_eq debug_assert_ne panic unreachable unimplemented todo matches dbg "
    "include include_str include_bytes concat stringify env option_env cfg line column file "
    "module_path compile_error thread_local"
)


class RustAdapter:
    language = Language.RUST
    extensions = (".rs",)
    separator = "::"
    package_scope = False
    implicit_member_scope = False
    imports_visible_as_members = False
    self_names = frozenset({"self", "Self"})
    static_self_names = frozenset[str]()
    builtins = frozenset(f"{PRIMITIVE_TYPES} {PRELUDE} {STD_MACROS}".split())

    def parse(self, path: str, source: bytes) -> FileSyntax:
        return parse_rust(path, source)

    def packages(self, layout: RepoLayout, files: list[str]) -> dict[str, Package]:
        return cargo.packages(layout, files)

    def resolve_module(self, spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
        return cargo.resolve_module(spec, from_file, layout)
