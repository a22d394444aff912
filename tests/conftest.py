"""Shared test fixtures: throwaway git repositories committed with a fixed identity and clock."""

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(repo.parent)}
    done = subprocess.run(["git", *args], cwd=repo, env=env, input=data, capture_output=True, check=True)
    return done.stdout.decode("utf-8", errors="replace").strip()


class Repo:
    """A real git repository in tmp_path; `commit` writes files and returns the new commit's SHA."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q", "-b", "main")
        git(path, "config", "user.name", "Test Author")
        git(path, "config", "user.email", "author@example.invalid")

    def write(self, files: dict[str, str | bytes]) -> None:
        for name, content in files.items():
            target = self.path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")

    def commit(self, files: dict[str, str | bytes] | None = None, message: str = "change") -> str:
        if files:
            self.write(files)
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.path, "rev-parse", "HEAD")

    def git(self, *args: str) -> str:
        return git(self.path, *args)


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[..., Repo]:
    counter = iter(range(1000))

    def make(files: dict[str, str | bytes] | None = None, name: str = "") -> Repo:
        repo = Repo(tmp_path / (name or f"repo{next(counter)}"))
        if files is not None:
            repo.commit(files, "initial")
        return repo

    return make


FIXTURES = Path(__file__).parent / "fixtures"
