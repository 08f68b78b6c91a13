"""Where co-tui keeps things on disk (platformdirs), created with private permissions."""

from __future__ import annotations

import os
import stat
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
    """Create `path` (and missing parents) with mode 700 if it does not exist. Returns the path.

    An existing directory is used as it is, never chmod-ed: it may be shared (`/tmp`, a team
    directory) and changing its mode would break others; `loose_dir_warning` says when it is open
    to other users.
    """
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path, 0o700)  # mkdir's mode is filtered by the umask
    return path


def loose_dir_warning(path: Path) -> str | None:
    """One line when the existing directory `path` is group- or world-readable, else None."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None
    if mode & 0o044:
        return (
            f"warning: data dir {path} is readable by other users (mode {mode:o}); "
            f"your saved conversations are in it (chmod 700 {path} to make it private)"
        )
    return None
