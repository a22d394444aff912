"""`python -m kivgraph` runs the CLI."""

from kivgraph.cli import main

main()
