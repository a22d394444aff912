"""How the Go indexes of one tree name each module's symbols once merged into one index (a use in
one module of another's declaration meets it there): kivgraph/scip/run.py merge_go, late.py bind."""

from collections.abc import Collection, Sequence


def go_versions(runs: Sequence[tuple[str, Sequence[tuple[str, str]]]],
                tree: Collection[str] | None = None) -> list[dict[str, str]]:  # fmt: skip
    """For the Go runs of one tree, as (root, local_modules), each run's module path → the version
    its symbols take in the merged index, for the modules loaded from a directory some run is
    rooted at: `.` for a module at one such directory, `./dir` for one of two modules of a path.

    `tree`: the roots of every Go module of the tree, when the runs are only some of them (a
    shard's, or those that gave an index): a module path two of them share is then told apart by
    directory even where one of the two did not run, so that a use of the one never meets the
    other's declaration."""
    defining = set(tree) if tree is not None else {root for root, _ in runs}
    pairs = {(path, directory) for _, local in runs for path, directory in local if directory in defining}
    directories: dict[str, set[str]] = {}
    for path, directory in pairs:
        directories.setdefault(path, set()).add(directory)

    def version(path: str, directory: str) -> str:
        spelled = "." if len(directories[path]) == 1 else f"./{directory}"
        return spelled.replace(" ", "  ")  # a space inside a SCIP symbol field is written twice

    return [{path: version(path, d) for path, d in local if (path, d) in pairs} for _, local in runs]


def versioned(symbol: str, table: dict[str, str]) -> str:
    """`scip-go gomod <module> <version> <rest>` with the version the table gives the module."""
    if not table or not symbol.startswith("scip-go gomod "):
        return symbol
    fields = symbol.split(" ", 4)
    if len(fields) < 5 or fields[2] not in table:
        return symbol
    fields[3] = table[fields[2]]
    return " ".join(fields)


def member(symbol: str, defined: set[str]) -> str:
    """scip-go spells an interface's method `Greeter#Greet.` where it declares it and
    `Greeter#Greet().` in another module's index (an implementation's relationship, a call): the
    same member, since a Go type has one member of a name. The spelling the declaration has."""
    if symbol in defined or "#" not in symbol:
        return symbol
    if symbol.endswith("()."):
        other = symbol[: -len("().")] + "."
    elif symbol.endswith("."):
        other = symbol[: -len(".")] + "()."
    else:
        return symbol
    return other if other in defined else symbol
