"""The twelve tools as data: name, one routing sentence, arguments and the query that answers.
The MCP server and `kivgraph query` both read this table; neither adds behaviour of its own."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kivgraph.graph import queries
from kivgraph.graph.arguments import Param
from kivgraph.graph.listing import ROLE_NAMES
from kivgraph.model import Confidence, Language

INSTRUCTIONS = (
    'Kivgraph answers "what breaks if I change this" from a published code graph over Go, TypeScript, Rust, '
    "Python and Dart. Before grepping or reading files to find callers, references or impact, call "
    "find_references or get_blast_radius; to read the code they name, call get_source. Check confidence and "
    "completeness: Python fallback facts can be CANDIDATE and external Dart packages can be UNRESOLVED. Its edges "
    "are resolved by go/types, the TypeScript checker and rust-analyzer, not by matching names, so a reference "
    "list is complete for those languages and an empty one means nobody calls it. Grep cannot tell you that. Rows "
    "are addressable: every one carries a repository, a repository-relative path, a qualified name and a line "
    "range, and every tool accepts that triple instead of a stable key. Where it loses: a rare name in a single "
    "small repository is cheaper to grep, and one small file is cheaper to read than to outline. It wins on "
    "common names, on transitive impact, on cross-repository consumers and on proving an absence.\n"
)
NOT_INDEXED_INSTRUCTIONS = (
    "Kivgraph has no published graph for this repository yet, so only index_project is available: call it "
    "(with the user's approval) to index and publish one, and the query tools appear; until then use the host's "
    "own search and file tools."
)

LANGUAGE_NAMES = tuple(lang.value for lang in Language)
CONFIDENCE_NAMES = tuple(c.value for c in Confidence)

SELECTOR = (
    Param("stable_key", "string", "The symbol's stable key (or use repository + path + qualified_name)."),
    Param("repository", "string", "Repository name; narrows qualified_name."),
    Param("path", "string", "Repository-relative file (or directory) path; needs repository."),
    Param(
        "qualified_name",
        "string",
        "Qualified name of the symbol: `<module>` names the file at path, `<package>` the Go package in the "
        "directory at path; a Rust name takes `.` or `::`.",
    ),
)
FORMAT = Param("response_format", "string", "concise (default) or detailed (keys, signatures).", "concise",
               enum=("concise", "detailed"))  # fmt: skip


def view(files: bool) -> Param:
    choices = ("compact", "full", "files") if files else ("compact", "full")
    return Param("view", "string", "compact (default), full" + (", or files" if files else "") + ".", "compact",
                 enum=choices)  # fmt: skip


def limit(default: int = 50) -> Param:
    return Param("limit", "integer", f"Rows per page (1–500, default {default}).", default, 1, 500)


CURSOR = Param("cursor", "string", "next_cursor of the previous page; repeat the other arguments unchanged.")
INCLUDE_DERIVED = Param("include_derived", "boolean", "Include the derived rust: standard library.", False)
EDGE_KINDS = Param("edge_kinds", "strings", "Edge kinds to follow or keep.")
CONFIDENCE = Param("confidence", "string", "Keep only edges of this confidence.", enum=CONFIDENCE_NAMES)
DEPTH = Param("depth", "integer", "Hops (1–5, default 3).", 3, 1, 5)
MAX_NODES = Param("max_nodes", "integer", "Stop after this many symbols (1–25000, default 5000).", 5000, 1, 25000)
REPO = Param("repo", "string", "Keep rows from this repository.")
LANGUAGE = Param("language", "string", "Keep rows of this language.", enum=LANGUAGE_NAMES)
ROLES = Param(
    "roles",
    "strings",
    "File roles whose rows are listed (" + ", ".join(ROLE_NAMES) + ', or "*"); default all but test, whose rows '
    "are counted per role under not_listed.",
    enum=(*ROLE_NAMES, "*"),
)
PATH_PREFIX = Param("path_prefix", "string", "Keep rows in files under this repository-relative prefix.")


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    run: Callable[[queries.Session, dict[str, Any]], Any]
    read_only: bool = True


TOOLS: tuple[Tool, ...] = (
    Tool(
        "find_references",
        "Find references",
        "Who calls or references a symbol, type-checked not name-matched, so an empty answer means nobody "
        "does; a bare name is enough and view files says which files to open; a rare name in one small "
        "repository is cheaper to grep.",
        (
            *SELECTOR,
            Param("name", "string", "Bare declared name, instead of a selector."),
            Param(
                "direction",
                "string",
                "incoming (default: who uses it) or outgoing (what it uses).",
                "incoming",
                enum=("incoming", "outgoing"),
            ),
            REPO,
            LANGUAGE,
            PATH_PREFIX,
            ROLES,
            EDGE_KINDS,
            CONFIDENCE,
            INCLUDE_DERIVED,
            limit(),
            CURSOR,
            FORMAT,
            view(True),
        ),
        queries.find_references,
    ),
    Tool(
        "get_blast_radius",
        "Get blast radius",
        "What a change to this symbol breaks: everything that transitively uses it, across interfaces, by "
        "repository, package, depth and relation; grep does not follow a chain.",
        (
            *SELECTOR,
            DEPTH,
            MAX_NODES,
            EDGE_KINDS,
            CONFIDENCE,
            Param("kinds", "strings", 'Symbol kinds to report ("*" for all; default all but field and variable).'),
            PATH_PREFIX,
            ROLES,
            INCLUDE_DERIVED,
            limit(),
            CURSOR,
            FORMAT,
            view(False),
        ),
        queries.get_blast_radius,
    ),
    Tool(
        "trace_dependencies",
        "Trace dependencies",
        "What this symbol reaches outward, bounded by depth; grep does not follow a chain.",
        (
            *SELECTOR,
            DEPTH,
            MAX_NODES,
            REPO,
            LANGUAGE,
            PATH_PREFIX,
            ROLES,
            EDGE_KINDS,
            CONFIDENCE,
            INCLUDE_DERIVED,
            limit(),
            CURSOR,
            FORMAT,
            view(False),
        ),
        queries.trace_dependencies,
    ),
    Tool(
        "find_cross_repo_consumers",
        "Find cross-repository consumers",
        "Consumers of this symbol in other indexed repositories, exact uses apart from unlinked references; a "
        "language server stops at its workspace.",
        (*SELECTOR, REPO, LANGUAGE, limit(), CURSOR, FORMAT, view(False)),
        queries.find_cross_repo_consumers,
    ),
    Tool(
        "find_symbol",
        "Find symbol",
        "Where a symbol is declared, by exact name, qualified name, prefix or substring; narrow with kind, repo or "
        "path_prefix; a unique name in one repository is cheaper to grep.",
        (
            Param("name", "string", "The name (or qualified name, or its start, or a part).", required=True),
            Param(
                "mode",
                "string",
                "exact (default), qualified_exact, prefix or substring.",
                "exact",
                enum=("exact", "qualified_exact", "prefix", "substring"),
            ),
            Param("kind", "string", "Keep this symbol kind."),
            REPO,
            Param("path_prefix", "string", "Keep files under this repository-relative prefix."),
            Param(
                "roles",
                "strings",
                "Keep declarations in files of these roles (default all; tests' last).",
                enum=(*ROLE_NAMES, "*"),
            ),  # fmt: skip
            INCLUDE_DERIVED,
            limit(),
            CURSOR,
            FORMAT,
            view(False),
        ),
        queries.find_symbol,
    ),
    Tool(
        "find_by_intent",
        "Find by intent",
        "When you do not know the name: files and symbols ranked by how their identifiers, paths and doc "
        "comments match your keywords; find_symbol is exact when you know it.",
        (
            Param("keywords", "strings", "Words describing what you look for.", required=True),
            INCLUDE_DERIVED,
            limit(20),
        ),
        queries.find_by_intent,
    ),
    Tool(
        "get_symbol",
        "Get symbol",
        "One symbol's package, signature, visibility and line range, by stable key or repository, path and "
        "qualified name.",
        (*SELECTOR, FORMAT),
        queries.get_symbol,
    ),
    Tool(
        "get_file_outline",
        "Get file outline",
        "What is declared under a file or directory, grouped by file with kind and range; one small file is "
        "cheaper to read.",
        (
            Param("repository", "string", "Repository name.", required=True),
            Param("path", "string", "Repository-relative file or directory.", required=True),
            Param("kind", "string", "Keep this symbol kind."),
            Param("include_members", "boolean", "Include fields, properties and enum members.", False),
            FORMAT,
            limit(200),
            CURSOR,
            view(True),
        ),
        queries.get_file_outline,
    ),
    Tool(
        "get_source",
        "Get source",
        "The code of several symbols in one call, checked against the index and re-anchored when a file "
        "moved; better than reading line ranges one by one.",
        (
            Param("symbols", "selectors", "Up to twenty selectors.", required=True, maximum=20),
            Param("context_lines", "integer", "Lines of context around each body (0–100).", 0, 0, 100),
            FORMAT,
        ),
        queries.get_source,
    ),
    Tool(
        "list_repositories",
        "List repositories",
        "The repositories the graph covers, with the commit each was indexed at and whether it moved since.",
        (limit(), CURSOR),
        queries.list_repositories,
    ),
    Tool(
        "graph_status",
        "Graph status",
        "The loaded graph: counts, analyzers and whether a repository moved since it was indexed; call it "
        "when an answer looks stale.",
        (),
        queries.graph_status,
    ),
)
TOOL_BY_NAME = {tool.name: tool for tool in TOOLS}
