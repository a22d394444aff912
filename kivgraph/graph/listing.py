"""Which rows a page lists and which it only counts: `roles` (default every role but `test`) and a
`path_prefix`, and the exact per-role summary of the rows left unlisted (`not_listed`)."""

from collections import Counter, defaultdict
from collections.abc import Iterable

from kivgraph.errors import InvalidArgumentError
from kivgraph.graph.answer import Row
from kivgraph.graph.index import Graph
from kivgraph.graph.select import clean_path
from kivgraph.model import FileRole

ROLE_NAMES = tuple(r.value for r in FileRole)
COUNTED_BY_DEFAULT = frozenset({FileRole.TEST.value})
"""Test rows fill pages without saying what breaks in the product: counted, listed when asked."""


def listed_roles(values: list[str] | None) -> frozenset[str]:
    """The roles whose rows a page lists: every one but test by default, all with `*`."""
    if values is None:
        return frozenset(ROLE_NAMES) - COUNTED_BY_DEFAULT
    if "*" in values:
        if values != ["*"]:
            raise InvalidArgumentError('roles must be "*" or a list of roles, not both')
        return frozenset(ROLE_NAMES)
    if not values:
        raise InvalidArgumentError('roles must be "*" or a non-empty list of roles')
    return frozenset(values)


def path_filter(prefix: str | None) -> str:
    """`path_prefix` checked (repository-relative, no `..`); "" keeps every path."""
    return clean_path(prefix) if prefix else ""


def not_listed(g: Graph, symbols: Iterable[int], per_file: bool) -> Row:
    """`{role: {"rows": n, "files": m}}` for rows a page does not list (`files` a count per file when
    `per_file`, `repository:path` once several repositories are loaded): exact counts, so the page
    plus this summary is the whole answer."""
    rows: Counter[str] = Counter()
    files: defaultdict[str, Counter[str]] = defaultdict(Counter)
    several = len(g.repositories) > 1
    for i in symbols:
        role = g.role_of(i)
        rows[role] += 1
        files[role][f"{g.repository_name(i)}:{g.path_of(i)}" if several else g.path_of(i)] += 1
    return {
        role: {"rows": rows[role], "files": dict(sorted(files[role].items())) if per_file else len(files[role])}
        for role in ROLE_NAMES
        if rows[role]
    }
