"""The Python adapter: the language's rules as data, plus entry points into extraction and modules.

Holds no state between files; parsing is `extract.py`, module and package lookup is `modules.py`.
"""

import builtins

from kivgraph.languages import ModuleTarget, RepoLayout
from kivgraph.languages.python.extract import SELF_NAMES, python_syntax
from kivgraph.languages.python.modules import python_packages, resolve_python_module
from kivgraph.languages.syntax import FileSyntax
from kivgraph.model import Language, Package

# Names every module has without importing them (the interpreter sets them on the module).
MODULE_GLOBALS = frozenset({"__file__", "__path__", "__spec__", "__loader__", "__package__", "__builtins__"})


class PythonAdapter:
    language = Language.PYTHON
    extensions = (".py", ".pyi")
    separator = "."
    package_scope = False
    implicit_member_scope = False
    imports_visible_as_members = True
    self_names = SELF_NAMES
    static_self_names = frozenset[str]()
    builtins: frozenset[str] = frozenset(dir(builtins)) | MODULE_GLOBALS

    def parse(self, path: str, source: bytes) -> FileSyntax:
        return python_syntax(path, source)

    def packages(self, layout: RepoLayout, files: list[str]) -> dict[str, Package]:
        return python_packages(layout, files)

    def resolve_module(self, spec: str, from_file: str, layout: RepoLayout) -> ModuleTarget:
        return resolve_python_module(spec, from_file, layout)
