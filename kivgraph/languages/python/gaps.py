"""Uses scip-python's index leaves out of one document, filled in from what `exact.py` reads: the
other classes of a union receiver, the names `__all__` lists. Symbols are strings read only as far
as scip-python's convention goes (a class ends in `#`, its member follows: `pkg/A#run().`).
"""

from collections.abc import Callable

from kivgraph.languages import RepoLayout
from kivgraph.languages.python.exact import PythonExtras, UnionReceiver, export_bindings, python_extras
from kivgraph.languages.python.modules import resolve_python_module
from kivgraph.languages.scopes import FileScopes
from kivgraph.model import Confidence, EdgeKind, Language, Unresolved

Emit = Callable[[str, str, EdgeKind, int, Confidence], None]
"""(source key, target key, kind, line, confidence) → an edge in this document."""


class PythonGaps:
    def __init__(
        self,
        scopes: FileScopes,
        source: bytes,
        occurrences: Callable[[], dict[int, str]],
        key_of: Callable[[str], str | None],
        bases: Callable[[str], tuple[str, ...]],
        emit: Emit,
        files: dict[str, FileScopes],
        read: Callable[[str], bytes | None],
    ) -> None:
        """`occurrences` gives, when first needed, the global symbol each use in the document
        resolves to by byte; `key_of` is the key of our declaration a symbol names (None when it
        is not ours); `bases` the classes a class symbol extends; `files` and `read` are the
        tree's, for the modules a `from m import *` reaches."""
        self.scopes, self.source, self.key_of, self.bases, self.emit = scopes, source, key_of, bases, emit
        # A file the syntax layer gave up on (past its parse budget) is not parsed again here.
        self.extras = python_extras(source) if not scopes.syntax.timed_out else PythonExtras()
        self.at = occurrences() if self.extras.unions or self.extras.exports else {}
        self.unresolved: list[Unresolved] = []
        self.files, self.read = files, read
        self.layout: RepoLayout | None = None

    def union(self, byte: int, symbol: str, source: str, kind: EdgeKind, line: int) -> None:
        """The use at `byte` resolved to `symbol`: when its receiver is declared as a union, each other
        class's member is a target too (STRUCTURAL_CERTAIN: the annotation and the index's resolution
        of its classes prove it), or a blind spot where narrowing or inheritance leaves it open."""
        receiver = self.extras.unions.get(byte)
        if receiver is None:
            return
        found, blind = union_targets(symbol, receiver, self.at.get, lambda s: self.key_of(s) is not None, self.bases)
        for other in found:
            target = self.key_of(other)
            if target is not None:
                self.emit(source, target, kind, line, Confidence.STRUCTURAL_CERTAIN)
        if blind:
            name = symbol.rpartition("#")[2].partition("(")[0].rstrip(".")
            path = self.scopes.path
            unresolved = Unresolved("RECEIVER_TYPE_UNION", Language.PYTHON, path, line, "", name, source, blind)
            self.unresolved.append(unresolved)

    def exports(self) -> None:
        """`__all__ = ["a"]`: EXPORTS from the module to what `a` is bound to in the module's own scope
        (its declaration, or what the index resolved the import of `a` to), STRUCTURAL_CERTAIN. A name
        bound to what is not ours is not linked; one bound nowhere visible is a blind spot."""
        scopes = self.scopes
        for binding in export_bindings(self.extras.exports, scopes, self.source):
            line, name = binding.entry.line, binding.entry.name
            symbol = self.at.get(binding.resolved_at) if binding.resolved_at >= 0 else None
            target = self.key_of(symbol) if symbol is not None else None
            if target is None and binding.declaration >= 0:
                target = scopes.keys[binding.declaration]
            elif target is None:
                # A name `from m import *` brings, or a module scip-python misnames (it does for
                # `from . import a`): the tree's paths say which.
                target = self.through_wildcards(name) if binding.wildcard else self.submodule(binding.module)
            if target is not None:
                self.emit(scopes.module_key, target, EdgeKind.EXPORTS, line, Confidence.STRUCTURAL_CERTAIN)
            elif symbol is None:
                why = "only a wildcard import could bind" if binding.wildcard else "the type checker did not resolve"
                detail = f"__all__ lists {name}, which {why}"
                unresolved = Unresolved("NAME_NOT_RESOLVED", scopes.language, scopes.path, line, "", name,
                                        scopes.module_key, detail)  # fmt: skip
                self.unresolved.append(unresolved)

    def modules(self, spec: str) -> tuple[str, ...]:
        """The files of the tree a module specifier written here names (implementation first)."""
        if self.layout is None:
            paths = [path for path in self.files if path.endswith((".py", ".pyi"))]
            self.layout = RepoLayout(paths, self.read)
        return resolve_python_module(spec, self.scopes.path, self.layout).files if spec else ()

    def submodule(self, spec: str) -> str | None:
        found = [self.files[path].module_key for path in self.modules(spec) if path in self.files]
        return found[0] if found else None

    def through_wildcards(self, name: str) -> str | None:
        """The key of the public top-level `name` of a module this one imports with `*` (the last
        such import that has it wins, as at run time); one level deep."""
        for imp in reversed(self.scopes.wildcards):
            for path in self.modules(imp.module):
                other = self.files.get(path)
                found = other.last_binding(other.top.get(name, [])) if other is not None else []
                if other is not None and len(found) == 1 and other.syntax.declarations[found[0]].exported:
                    return other.keys[found[0]]
        return None


def union_targets(
    symbol: str,
    receiver: UnionReceiver,
    symbol_at: Callable[[int], str | None],
    ours: Callable[[str], bool],
    bases: Callable[[str], tuple[str, ...]],
) -> tuple[list[str], str]:
    """scip-python names the member of one class of a union receiver (`A#run().`). Returns the
    member's symbol in each other class the annotation names (as the index resolved it, `B#`) —
    declared there or inherited along single inheritance (`B#run().`) — when syntax proves the
    receiver is not narrowed; and, when something could not be settled, why (else "")."""
    member = symbol.rpartition("#")[2]
    reported = symbol[: len(symbol) - len(member)]
    if not member or "/" in member or not reported.endswith("#"):
        return [], ""
    found: list[str] = []
    unsettled = False
    for byte in receiver.members:
        named = symbol_at(byte)
        if named is None or not named.endswith("#") or named == reported:
            continue
        current = named
        for _ in range(16):
            if ours(current + member):
                break
            parents = bases(current)
            current = parents[0] if len(parents) == 1 else ""
            if not current:
                break
        if current and ours(current + member):
            if current + member != symbol and current + member not in found:
                found.append(current + member)
        elif ours(named):
            unsettled = True
    where = f"{receiver.receiver}: {receiver.annotation}; the type checker named one member's {member.rstrip('().')}"
    if found and receiver.narrowed:
        return [], f"{where}, and the function may narrow {receiver.receiver} here"
    unknown = "and where another member gets it from (several bases, or one outside the repository) is unknown"
    return found, f"{where}, {unknown}" if unsettled else ""
