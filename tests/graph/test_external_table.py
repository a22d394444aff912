"""ExternalTable groups a repository's external references by what they name, so linking resolves
each once: the first row of every group and each row's group, in stored order."""

import numpy as np

from kivgraph.graph.index import ExternalTable


def table(rows: list[tuple[int, int, int, int]]) -> ExternalTable:
    columns = {name: np.array([r[i] for r in rows], dtype=np.int32)
               for i, name in enumerate(("language", "provenance", "package", "symbol"))}  # fmt: skip
    columns["source"] = np.arange(len(rows), dtype=np.int32)
    return ExternalTable(0, 0, columns, [], [], [], [], [])


def test_each_distinct_reference_is_one_group_led_by_its_first_row():
    rows = [(0, 0, 5, 7), (0, 0, 5, 8), (0, 0, 5, 7), (1, 0, 5, 7), (0, 0, 5, 8), (0, 1, 5, 7)]
    firsts, inverse = table(rows).distinct()
    assert sorted(firsts) == [0, 1, 3, 5]
    groups = [firsts[g] for g in inverse.tolist()]
    assert groups == [0, 1, 0, 3, 1, 5]  # every row points at the first row naming the same thing


def test_one_row_and_no_rows():
    assert table([(2, 1, 3, 4)]).distinct()[0] == [0]
    assert table([]).distinct()[0] == []
