import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pygit2
import pytest

from kivgraph.graph.source import FILE_LIMIT_BYTES, SourceBody, SourceRequest, read_bodies, render_bodies

ORIGINAL = """package demo

// Helper is documented here.
func Helper() int {
	return 1
}

func Other() {}
"""


def blob_id(text: str) -> str:
    return str(pygit2.hash(text.encode("utf-8")))


def write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def request(
    root: Path | str,
    path: str = "demo.go",
    *,
    name: str = "Helper",
    start: int = 4,
    end: int = 6,
    digest: str = "",
    repository: str = "demo",
    stable_key: str = "",
) -> SourceRequest:
    return SourceRequest(
        repository=repository,
        root=str(root),
        path=path,
        qualified_name=f"demo.{name}",
        name=name,
        kind="function",
        start_line=start,
        end_line=end,
        digest=digest,
        stable_key=stable_key,
        status="indexed",
    )


def only(requests: list[SourceRequest], context_lines: int = 0) -> SourceBody:
    bodies, trimmed = read_bodies(requests, context_lines)
    assert trimmed == 0
    assert len(bodies) == 1
    return bodies[0]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every path `os.open` is called with while the test runs."""
    calls: list[str] = []
    real_open: Callable[..., int] = os.open

    def spy(path: str, *args: object, **kwargs: object) -> int:
        calls.append(os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    return calls


def test_a_file_matching_its_digest_serves_the_recorded_range(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert body.text == "func Helper() int {\n\treturn 1\n}"
    assert (body.start_line, body.end_line, body.shift, body.reason) == (4, 6, None, "")


def test_context_lines_widen_the_window_and_are_clamped_to_the_file(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))], context_lines=2)
    assert (body.start_line, body.end_line) == (2, 8)
    wide = only([request(tmp_path, digest=blob_id(ORIGINAL))], context_lines=100)
    assert (wide.start_line, wide.end_line) == (1, 8)
    assert wide.text == ORIGINAL.removesuffix("\n")


def test_an_edit_above_the_symbol_re_anchors_it_with_the_signed_shift(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL.replace("package demo\n", 'package demo\n\nimport "fmt"\n'))
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert (body.start_line, body.end_line, body.shift) == (6, 8, 2)
    assert body.text == "func Helper() int {\n\treturn 1\n}"


def test_an_edit_that_removes_lines_above_gives_a_negative_shift(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL.replace("// Helper is documented here.\n", ""))
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert (body.start_line, body.end_line, body.shift) == (3, 5, -1)


def test_without_a_recorded_digest_the_file_is_authority_even_when_unchanged(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    body = only([request(tmp_path, digest="")])
    assert (body.start_line, body.shift) == (4, 0)
    assert "[file changed, re-anchored +0]" in render_bodies(1, [body], 0, 0)


def test_a_removed_symbol_is_refused_even_if_a_comment_still_names_it(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", "package demo\n\n// Helper used to live here.\n# Helper\n/* Helper */\n * Helper\n")
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert body.text is None
    assert body.reason == "no declaration of Helper remains"


def test_a_name_only_inside_a_longer_identifier_does_not_anchor(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", "package demo\n\nfunc HelperV2() {}\nfunc myHelper() {}\n")
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert body.reason == "no declaration of Helper remains"


def test_two_occurrences_equally_far_from_the_recorded_line_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", "package demo\n\nfunc Helper() {}\n\nfunc Helper2() { Helper() }\n\n\n")
    body = only([request(tmp_path, start=4, end=4, digest=blob_id(ORIGINAL))])
    assert body.text is None
    assert body.reason == "Helper now appears 2 times equally far from its recorded position"


def test_a_span_that_would_run_past_the_end_of_the_file_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", "package demo\n\nfunc Helper() int { return 1 }\n")
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert body.text is None
    assert body.reason == "Helper no longer spans 3 lines"


def test_a_symbol_without_a_line_range_is_refused(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    body = only([request(tmp_path, start=0, end=0, digest=blob_id(ORIGINAL))])
    assert body.reason == "no line range is recorded for demo.Helper"


@pytest.mark.parametrize("path", ["../outside.go", "a/../../outside.go", "a//demo.go", "./demo.go", "demo.go/"])
def test_paths_that_are_not_normalized_and_relative_are_refused_without_opening_anything(
    tmp_path: Path, opened: list[str], path: str
) -> None:
    root = tmp_path / "repo"
    write(root, "demo.go", ORIGINAL)
    write(tmp_path, "outside.go", "SECRET\n")
    body = only([request(root, path)])
    assert body.text is None
    assert "repository-relative path" in body.reason
    assert opened == []


def test_an_absolute_path_is_refused_without_opening_it(tmp_path: Path, opened: list[str]) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write(tmp_path, "outside.go", "func Helper() {\nSECRET\n}\n")
    bodies, _ = read_bodies([request(root, str(tmp_path / "outside.go"), start=1, end=3)])
    assert bodies[0].reason.endswith("is not a repository-relative path")
    assert opened == []
    assert "SECRET" not in render_bodies(1, bodies, 0, 0)


def test_a_symlinked_file_pointing_outside_the_root_is_never_read(tmp_path: Path, opened: list[str]) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write(tmp_path, "outside.go", "func Helper() {\nSECRET\n}\n")
    (root / "demo.go").symlink_to(tmp_path / "outside.go")
    bodies, _ = read_bodies([request(root, start=1, end=3)])
    assert bodies[0].text is None
    assert bodies[0].reason == "demo.go is a symbolic link; sources are never read through one"
    assert opened == []
    assert "SECRET" not in render_bodies(1, bodies, 0, 0)


def test_a_symlink_to_a_file_inside_the_root_is_refused_too(tmp_path: Path, opened: list[str]) -> None:
    write(tmp_path, "real.go", ORIGINAL)
    (tmp_path / "demo.go").symlink_to(tmp_path / "real.go")
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert body.reason == "demo.go is a symbolic link; sources are never read through one"
    assert opened == []


def test_a_symlinked_directory_component_is_refused(tmp_path: Path, opened: list[str]) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    write(tmp_path, "elsewhere/demo.go", ORIGINAL.replace("return 1", "return SECRET"))
    (root / "pkg").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    bodies, _ = read_bodies([request(root, "pkg/demo.go")])
    assert bodies[0].reason == "pkg is a symbolic link; sources are never read through one"
    assert opened == []
    assert "SECRET" not in render_bodies(1, bodies, 0, 0)


def test_a_missing_file_is_refused_with_the_system_reason(tmp_path: Path) -> None:
    body = only([request(tmp_path, "gone/demo.go")])
    assert body.reason == "cannot read gone/demo.go: No such file or directory"


def test_a_directory_or_fifo_is_not_a_regular_file(tmp_path: Path, opened: list[str]) -> None:
    (tmp_path / "demo.go").mkdir()
    os.mkfifo(tmp_path / "pipe.go")
    bodies, _ = read_bodies([request(tmp_path), request(tmp_path, "pipe.go")])
    assert [b.reason for b in bodies] == ["demo.go is not a regular file", "pipe.go is not a regular file"]
    assert opened == []


def test_an_unknown_working_tree_is_refused(opened: list[str]) -> None:
    body = only([request("", repository="payments")])
    assert body.reason == "no working tree is known for repository payments"
    assert opened == []


def test_the_first_body_past_the_budget_is_left_out_with_the_rest_and_each_is_named(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    helper = request(tmp_path, digest=blob_id(ORIGINAL))  # 31 bytes
    other = request(tmp_path, name="Other", start=8, end=8, digest=blob_id(ORIGINAL))  # 15 bytes
    refused = request(tmp_path, "gone.go")
    bodies, trimmed = read_bodies([helper, refused, helper, other], budget=62)
    assert [b.request for b in bodies] == [helper, refused, helper, other]
    assert [b.left_out for b in bodies] == [False, False, False, True]
    assert trimmed == 1
    bodies, trimmed = read_bodies([helper, other, helper, refused], budget=61)
    assert [b.left_out for b in bodies] == [False, False, True, True]
    assert trimmed == 2
    text = render_bodies(3, bodies, 0, trimmed)
    assert text.splitlines()[0] == (
        "snapshot 3  2 bodies  context 0  truncated: 2 left out at a byte ceiling; "
        "call get_source again with those marked left out"
    )
    assert text.splitlines()[-2:] == [
        "! demo demo.go demo.Helper — left out: the answer reached its 61 byte ceiling of code; "
        "ask for it in another call",
        "! demo gone.go demo.Helper — left out: the answer reached its 61 byte ceiling of code; "
        "ask for it in another call",
    ]


def test_files_past_the_read_budget_are_left_out_unread(tmp_path: Path, opened: list[str]) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    write(tmp_path, "copy.go", ORIGINAL)
    first, second = request(tmp_path, digest=blob_id(ORIGINAL)), request(tmp_path, "copy.go", digest=blob_id(ORIGINAL))
    bodies, trimmed = read_bodies([first, first, second], read_budget=len(ORIGINAL) + 10)
    assert [b.left_out for b in bodies] == [False, False, True] and trimmed == 1
    assert bodies[2].reason == (
        f"left out: the answer reached its {len(ORIGINAL) + 10} byte ceiling of files read; ask for it in another call"
    )
    assert opened == [str(tmp_path / "demo.go")]


def test_a_file_past_the_size_limit_is_refused_without_being_read(tmp_path: Path, opened: list[str]) -> None:
    with open(tmp_path / "demo.go", "wb") as handle:
        handle.truncate(256 * 1024 * 1024)  # sparse: the size of a grown file without its disk space
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert body.reason == (
        f"demo.go is larger than {FILE_LIMIT_BYTES} bytes, the limit of a served file (none that large is indexed)"
    )
    assert opened == []


def test_a_file_that_grows_past_the_limit_after_it_was_measured_is_read_only_up_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    measured = os.lstat(tmp_path / "demo.go")
    real_lstat = os.lstat

    def stale_lstat(path: str | os.PathLike[str]) -> os.stat_result:
        if os.fspath(path).endswith("demo.go"):
            (tmp_path / "demo.go").write_text(ORIGINAL * 50_000, encoding="utf-8")  # 4.5 MB, same inode
            return measured
        return real_lstat(path)

    monkeypatch.setattr(os, "lstat", stale_lstat)
    body = only([request(tmp_path, digest=blob_id(ORIGINAL))])
    assert body.reason.startswith("demo.go is larger than")


@pytest.mark.parametrize(
    "path",
    [".git/config", "sub/.git/config", ".GIT/config", ".Git/HEAD", ".git./config", ".git /config", "GIT~1/config",
     ".g\u200cit/config", "\ufeff.git/config"],
)  # fmt: skip
def test_a_path_that_can_open_the_git_directory_is_refused_without_opening_anything(
    tmp_path: Path, opened: list[str], path: str
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("url = https://user:SECRET@example.invalid/x.git\n", encoding="utf-8")
    body = only([request(tmp_path, path, start=1, end=1)])
    assert body.text is None
    assert body.reason == f"{path!r} lies in the repository's .git directory, which is never served"
    assert opened == []


@pytest.mark.parametrize("path", [".gitignore", ".github/workflows/ci.go", "git/demo.go", "a.git/demo.go"])
def test_names_that_only_resemble_the_git_directory_are_served(tmp_path: Path, path: str) -> None:
    write(tmp_path, path, ORIGINAL)
    assert only([request(tmp_path, path, digest=blob_id(ORIGINAL))]).text == "func Helper() int {\n\treturn 1\n}"


@pytest.mark.parametrize("status", ["skipped_binary", "skipped_too_large", "skipped_generated", "unknown"])
def test_a_file_the_file_table_does_not_record_as_indexed_source_is_refused(
    tmp_path: Path, opened: list[str], status: str
) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    body = only([replace(request(tmp_path, digest=blob_id(ORIGINAL)), status=status)])
    assert body.reason == f"demo.go is recorded as {status}, not as an indexed source file; it is never served"
    assert opened == []


@pytest.mark.parametrize("status", ["indexed", "parse_errors", "invalid_utf8"])
def test_files_parsed_as_source_are_served_whatever_their_parse_went_like(tmp_path: Path, status: str) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    body = only([replace(request(tmp_path, digest=blob_id(ORIGINAL)), status=status)])
    assert body.text == "func Helper() int {\n\treturn 1\n}"


def test_two_symbols_in_one_file_read_it_once(tmp_path: Path, opened: list[str]) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    bodies, _ = read_bodies(
        [request(tmp_path, digest=blob_id(ORIGINAL)), request(tmp_path, name="Other", start=8, end=8)]
    )
    assert [b.text for b in bodies] == ["func Helper() int {\n\treturn 1\n}", "func Other() {}"]
    assert opened == [str(tmp_path / "demo.go")]


def test_the_same_relative_path_in_two_repositories_is_read_from_each(tmp_path: Path, opened: list[str]) -> None:
    write(tmp_path / "one", "demo.go", ORIGINAL)
    write(tmp_path / "two", "demo.go", ORIGINAL.replace("return 1", "return 2"))
    bodies, _ = read_bodies(
        [
            request(tmp_path / "one", repository="one", digest=blob_id(ORIGINAL)),
            request(tmp_path / "two", repository="two", digest=blob_id(ORIGINAL)),
        ]
    )
    assert [b.text for b in bodies] == ["func Helper() int {\n\treturn 1\n}", "func Helper() int {\n\treturn 2\n}"]
    assert [b.shift for b in bodies] == [None, 0]
    assert len(opened) == 2


def test_crlf_line_endings_are_served_without_carriage_returns(tmp_path: Path) -> None:
    crlf = ORIGINAL.replace("\n", "\r\n")
    (tmp_path / "demo.go").write_bytes(crlf.encode("utf-8"))
    body = only([request(tmp_path, digest=blob_id(crlf))])
    assert (body.text, body.shift) == ("func Helper() int {\n\treturn 1\n}", None)


def test_the_answer_lists_bodies_and_refusals_in_request_order(tmp_path: Path) -> None:
    write(tmp_path, "demo.go", ORIGINAL)
    write(tmp_path, "moved.go", "package demo\n\n\nfunc Other() {}\n")
    bodies, trimmed = read_bodies(
        [
            request(tmp_path, digest=blob_id(ORIGINAL), stable_key="go:demo:Helper"),
            request(tmp_path, "moved.go", name="Other", start=8, end=8, digest=blob_id(ORIGINAL)),
            request(tmp_path, "gone.go"),
            request(tmp_path, name="Other", start=8, end=8, digest=blob_id(ORIGINAL)),
        ],
        context_lines=1,
    )
    assert render_bodies(7, bodies, 1, trimmed) == (
        "snapshot 7  4 bodies  context 1\n"
        "@ demo demo.go:3-7 function demo.Helper\n"
        "// Helper is documented here.\n"
        "func Helper() int {\n"
        "\treturn 1\n"
        "}\n"
        "\n"
        "\n"
        "@ demo moved.go:3-4 function demo.Other [file changed, re-anchored -4]\n"
        "\n"
        "func Other() {}\n"
        "\n"
        "! demo gone.go demo.Helper — cannot read gone.go: No such file or directory\n"
        "@ demo demo.go:7-8 function demo.Other\n"
        "\n"
        "func Other() {}\n"
    )
    detailed = render_bodies(7, bodies, 1, trimmed, detailed=True)
    assert "@ demo demo.go:3-7 function demo.Helper go:demo:Helper\n" in detailed
