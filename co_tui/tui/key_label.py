"""How a key is written for people (`ctrl+k` → `Ctrl+K`): one wording for the help, the keys
reference, the palette and every screen's hint line. Its own module so a screen that labels its keys
imports no reference that imports that screen."""

from __future__ import annotations

_KEY_NAMES = {
    "escape": "Esc",
    "enter": "Enter",
    "end": "End",
    "home": "Home",
    "tab": "Tab",
    "space": "Space",
    "delete": "Del",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "slash": "/",
}


def key_label(key: str) -> str:
    """A key as people write it: `ctrl+k` → `Ctrl+K`, `escape` → `Esc`, `f2` → `F2`.

    A comma-separated binding (`escape,q`) becomes `Esc / Q`; a sequence pressed in a row
    (`escape escape`) becomes `Esc Esc`.
    """
    return " / ".join(" ".join(_one(press) for press in one.split()) for one in key.split(","))


def _one(key: str) -> str:
    *mods, base = key.strip().split("+")
    name = _KEY_NAMES.get(base, base.upper() if len(base) <= 3 else base.capitalize())
    return "+".join([*(m.capitalize() for m in mods), name])
