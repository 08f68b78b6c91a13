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


def data_dir_without_settings() -> Path | None:
    """Where `Settings.resolved_data_dir` will point, read without pydantic-settings (~150 ms that a
    resumed conversation need not wait for: docs/architecture.md, "Start-up"): `CO_TUI_DATA_DIR`,
    else `data_dir` in the config file, else the platformdirs default.

    None when the value is not plainly valid (an empty or relative path, a config file that does
    not parse, a `data_dir` that is not a string): the caller then builds `Settings`, whose error
    names the setting and its source. Same precedence as `Settings` (CLI > env > file > default;
    there is no data-dir flag).
    """
    value: object = None
    for name, env_value in os.environ.items():
        if name.upper() == "CO_TUI_DATA_DIR":  # pydantic-settings matches env names case-insensitively
            value = env_value
    if value is None:
        config_file = default_config_file()
        if config_file.exists():
            import tomllib

            try:
                value = tomllib.loads(config_file.read_text(encoding="utf-8")).get("data_dir")
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return None
    if value is None:
        return default_data_dir().expanduser()
    if not isinstance(value, str) or not value.strip():
        return None
    path = Path(value).expanduser()
    return path if path.is_absolute() else None


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
