"""kivgraph's GitHub Action (action.yml at the repository root): its steps run as
`python -m kivgraph.action STEP`. Thin glue over diff-impact (kivgraph.impact) and the notes sync;
the analysis itself lives there, not here."""

from kivgraph.action.steps import MARKER, main

__all__ = ["MARKER", "main"]
