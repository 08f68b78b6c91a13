"""Where co-tui keeps things on disk (platformdirs), created with private permissions."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "co-tui"


def default_config_file() -> Path:
    """`CO_TUI_CONFIG_FILE` if set, else `config.toml` in the platformdirs user config dir."""
    override = os.environ.get("CO_TUI_CONFIG_FILE")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME)) / "config.toml"


def default_data_dir() -> Path:
    """The platformdirs user data dir (sessions.db lives here unless `data_dir` says otherwise)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP_NAME))


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) if missing and make it mode 700. Returns the path."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path
