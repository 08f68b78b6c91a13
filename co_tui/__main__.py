from co_tui.cli import main

raise SystemExit(main())
