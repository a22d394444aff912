"""The TypeScript and JavaScript adapters: one implementation, two languages.

They differ only in the language they report, their file extensions and the grammar that parses
them (`.tsx` uses the tsx grammar, other TypeScript files the typescript grammar, JavaScript the
javascript grammar, which includes JSX).
"""

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.languages.syntax import FileSyntax
from kivgraph.languages.typescript.builtins import BUILTINS
from kivgraph.languages.typescript.extract import grammar_for, parse_file
from kivgraph.languages.typescript.manifests import manifests
from kivgraph.languages.typescript.modules import resolve
from kivgraph.model import Language, Package


class EcmaScriptAdapter:
    """What TypeScript and JavaScript share; subclasses set the language, extensions and grammar."""

    language: Language
    extensions: tuple[str, ...]
    grammar_name: str
    separator = "."
    package_scope = False
    implicit_member_scope = False
    imports_visible_as_members = False
    self_names = frozenset({"this"})
    static_self_names = frozenset[str]()
    builtins = BUILTINS

    def parse(self, path: str, source: bytes) -> FileSyntax:
        return parse_file(path, source, grammar_for(path, self.grammar_name))

    def packages(self, layout: RepoLayout, files: list[str]) -> dict[str, Package]:
        cache = manifests(layout)
        by_manifest: dict[str, Package] = {}
        found: dict[str, Package] = {}
        for path in files:
            manifest = cache.named_package_for(path)
            if manifest is None:
                continue
            package = by_manifest.get(manifest.path)
            if package is None:
                package = by_manifest[manifest.path] = Package(
                    id=f"{self.language}:{manifest.name}",
                    language=self.language,
                    name=manifest.name,
                    root=manifest.root,
                    manifest=manifest.path,
                    version=manifest.version,
                )
            found[path] = package
        return found

    def resolve_module(self, spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
        return resolve(spec, from_file, layout)


class TypeScriptAdapter(EcmaScriptAdapter):
    language = Language.TYPESCRIPT
    extensions = (".ts", ".tsx", ".mts", ".cts")
    grammar_name = "typescript"


class JavaScriptAdapter(EcmaScriptAdapter):
    language = Language.JAVASCRIPT
    extensions = (".js", ".jsx", ".mjs", ".cjs")
    grammar_name = "javascript"
