"""`DartAdapter`: the Dart rules the shared resolver needs, stated as data, plus the three entry points.

Parsing lives in `extract.py`, pubspec packages and URIs in `pub.py`; this module only wires them.
"""

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.languages.dart import pub
from kivgraph.languages.dart.extract import parse_dart
from kivgraph.languages.syntax import FileSyntax
from kivgraph.model import Language, Package

DART_CORE = (
    "int double num String bool dynamic void Object Null Never Function List Map Set Iterable Iterator "
    "Future Stream Duration DateTime Type Symbol Record Enum Comparable Pattern Match RegExp Uri BigInt "
    "StringBuffer StringSink Sink MapEntry StackTrace Stopwatch Runes Invocation Expando WeakReference "
    "Finalizer BidirectionalIterator Exception Error AssertionError TypeError ArgumentError RangeError "
    "IndexError StateError FormatException UnimplementedError UnsupportedError NoSuchMethodError "
    "ConcurrentModificationError OutOfMemoryError StackOverflowError IntegerDivisionByZeroException "
    "print identical identityHashCode override deprecated Deprecated pragma"
)


class DartAdapter:
    language = Language.DART
    extensions = (".dart",)
    separator = "."
    package_scope = False
    implicit_member_scope = True
    imports_visible_as_members = False
    self_names = frozenset({"this", "super"})
    static_self_names = frozenset({"this"})
    builtins = frozenset(DART_CORE.split())

    def parse(self, path: str, source: bytes) -> FileSyntax:
        return parse_dart(path, source)

    def packages(self, layout: RepoLayout, files: list[str]) -> dict[str, Package]:
        return pub.packages(layout, files)

    def resolve_module(self, spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
        return pub.resolve_module(spec, from_file, layout)
