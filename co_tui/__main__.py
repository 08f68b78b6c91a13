"""`python -m co_tui`: the `co-tui` command (`co_tui.cli.main`); exits with its status."""

from co_tui.cli import main

raise SystemExit(main())
