"""`python -m kivgraph.action STEP`: what action.yml runs."""

from kivgraph.action.steps import main

raise SystemExit(main())
