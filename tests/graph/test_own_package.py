"""A repository whose own package is installed (not editable) in the environment its analyzer uses:
scip-python resolves `import greetlib` in tests/ to the copy in site-packages, and those uses must
bind back to the source declarations (EXACT_PACKAGE_MAPPED) — or, when the source no longer
declares what the installed copy does, be blind spots — never vanish as a third-party package.

The environment is real: a virtual environment whose pip installs a wheel of the project; the
analyzer finds it as the `python3` first on PATH, as it would in an activated environment.
"""

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kivgraph.graph.catalog import Catalog, run_tool
from kivgraph.graph.tools import TOOL_BY_NAME
from kivgraph.impact.analysis import analyze
from kivgraph.indexing import index_repository
from kivgraph.store import save_to_notes
from kivgraph.store.git import open_repository
from tests.conftest import Repo
from tests.scip.analyzers import require

Row = dict[str, Any]
PYPROJECT = """[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "greet-lib"
version = "1.0.0"
"""
CORE = """def greet(name: str) -> str:
    return shout(name)


def shout(name: str) -> str:
    return name.upper()
"""
PROJECT: dict[str, str | bytes] = {
    "pyproject.toml": PYPROJECT,
    "src/greetlib/__init__.py": 'from greetlib.core import greet\n\n__all__ = ["greet"]\n',
    "src/greetlib/core.py": CORE,
    "tests/test_greet.py": "import greetlib\nfrom greetlib.core import shout\n\n\n"
    'def test_greet():\n    assert greetlib.greet("a") == "A"\n\n\n'
    'def test_shout():\n    assert shout("a") == "A"\n',
    ".gitignore": "venv/\n",
}
MOVED: dict[str, str | bytes] = {
    # `greet` moved to a module of its own; the installed release still has it in core.
    "src/greetlib/__init__.py": 'from greetlib.api import greet\n\n__all__ = ["greet"]\n',
    "src/greetlib/core.py": CORE.replace("def greet(name: str) -> str:\n    return shout(name)\n\n\n", ""),
    "src/greetlib/api.py": "from greetlib.core import shout\n\n\n"
    "def greet(name: str) -> str:\n    return shout(name)\n",
}


def wheel(source: Path, distribution: str, version: str, out: Path) -> Path:
    """A pure wheel of the packages under `source`, written directly (building one needs `wheel`,
    which an offline machine may lack); pip installs it like any other."""
    stem = distribution.replace("-", "_")
    info = f"{stem}-{version}.dist-info"
    files = {p.relative_to(source).as_posix(): p.read_bytes() for p in sorted(source.rglob("*.py"))}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n".encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"

    def digest(data: bytes) -> str:
        return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()

    record = "".join(f"{name},{digest(data)},{len(data)}\n" for name, data in files.items()) + f"{info}/RECORD,,\n"
    path = out / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{info}/RECORD", record)
    return path


def environment(root: Path, built: Path) -> Path:
    """A virtual environment with `built` pip-installed (non-editable); its bin directory."""
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, capture_output=True)
    pip = [str(root / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(built)]
    subprocess.run(pip, check=True, capture_output=True)
    return root / "bin"


@dataclass(frozen=True, slots=True)
class Setup:
    root: Path
    bin: Path
    """The environment with greet-lib 1.0.0 (the project's own release) installed."""
    fork_bin: Path
    """An environment with the same import package shipped as another distribution."""


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    require("scip-python")
    root = tmp_path_factory.mktemp("own")
    release = Repo(root / "release")
    release.commit(PROJECT, message="release")
    wheels = root / "wheels"
    wheels.mkdir()
    own = environment(root / "venv", wheel(release.path / "src", "greet-lib", "1.0.0", wheels))
    fork = environment(root / "fork-venv", wheel(release.path / "src", "greet-fork", "9.0.0", wheels))
    return Setup(root, own, fork)


def indexed(setup: Setup, name: str, files: dict[str, str | bytes], bin_dir: Path) -> Repo:
    """The project committed with `files` over it and indexed with the analyzer in `bin_dir`'s
    environment."""
    repo = Repo(setup.root / name)
    repo.commit({**PROJECT, **files}, message=name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
        patch.setenv("VIRTUAL_ENV", str(bin_dir.parent))
        generation = index_repository(str(repo.path), run_analyzers=True)
    save_to_notes(open_repository(str(repo.path)), generation)
    return repo


@pytest.fixture(scope="module")
def installed(setup: Setup) -> Repo:
    return indexed(setup, "installed", {}, setup.bin)


def references(repo: Repo, path: str, qualified_name: str) -> Row:
    catalog = Catalog([str(repo.path)], [], None)
    catalog.load()
    assert catalog.session is not None, catalog.problems
    answer: Row = json.loads(run_tool(catalog, TOOL_BY_NAME["find_references"],
                                      {"repository": repo.path.name, "path": path, "qualified_name": qualified_name,
                                       "view": "full", "roles": "*"}))  # fmt: skip
    return answer


def callers(answer: Row) -> set[tuple[str, str, str]]:
    return {(r["file_path"], r["qualified_name"], r["confidence"]) for r in answer["results"]["references"]}


def test_tests_calling_the_installed_copy_of_the_own_package_are_references_to_its_source(installed: Repo):
    shout = references(installed, "src/greetlib/core.py", "shout")
    assert ("tests/test_greet.py", "test_shout", "EXACT_PACKAGE_MAPPED") in callers(shout)
    assert ("src/greetlib/core.py", "greet", "EXACT_TYPECHECKED") in callers(shout)
    assert shout["completeness"] == {"verdict": "COMPLETE"}
    # Through the package's re-export: the checker named the declaration in core.
    greet = references(installed, "src/greetlib/core.py", "greet")
    assert ("tests/test_greet.py", "test_greet", "EXACT_PACKAGE_MAPPED") in callers(greet)
    assert {r["provenance"] for r in greet["results"]["references"] if r["file_path"].startswith("tests/")} == {
        "MANIFEST"
    }


def test_a_use_of_what_only_the_installed_copy_declares_is_a_blind_spot_never_an_absence(setup: Setup):
    moved = indexed(setup, "moved", MOVED, setup.bin)
    answer = references(moved, "src/greetlib/api.py", "greet")
    assert answer["completeness"]["verdict"] == "LOWER_BOUND"
    [spot] = answer["completeness"]["blind_spots"]
    assert (spot["reason"], spot["file_path"], spot["start_line"]) == ("PROVIDER_SYMBOL_NOT_FOUND",
                                                                       "tests/test_greet.py", 6)  # fmt: skip
    assert spot["requested_symbol"] == "greetlib.core.greet"
    assert "installed copy of greet-lib 1.0.0" in spot["detail"]
    # What the installed copy and the source both declare still binds.
    shout = references(moved, "src/greetlib/core.py", "shout")
    assert ("tests/test_greet.py", "test_shout", "EXACT_PACKAGE_MAPPED") in callers(shout)


def test_another_distribution_of_the_same_import_package_never_binds_to_the_source(setup: Setup):
    forked = indexed(setup, "forked", {}, setup.fork_bin)
    shout = references(forked, "src/greetlib/core.py", "shout")
    assert {file for file, _, _ in callers(shout)} == {"src/greetlib/core.py"}


def test_diff_impact_reaches_the_tests_through_the_installed_copy(installed: Repo):
    (installed.path / "src/greetlib/core.py").write_text(CORE.replace("name.upper()", 'name.upper() + "!"'),
                                                         encoding="utf-8")  # fmt: skip
    try:
        impact = analyze(str(installed.path), "HEAD", None)
    finally:
        installed.git("checkout", "-q", "--", "src/greetlib/core.py")
    affected = {(a.file_path, a.qualified_name) for a in impact.affected}
    assert {("tests/test_greet.py", "test_shout"), ("tests/test_greet.py", "test_greet")} <= affected
    assert impact.completeness["verdict"] == "COMPLETE"
