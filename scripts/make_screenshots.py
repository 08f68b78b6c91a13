"""Regenerate the README screenshots in assets/ from the real app (not a test).

The real CoTuiApp and ChatSession with the offline model, in a temp demo workspace and temp data
dir, driven by Textual's pilot at a fixed terminal size: a few turns with a small token budget
(so governance trims; the newest banner is opened), then the history inspector (F2) and the help (F1).
Each screen is saved as SVG (`App.save_screenshot`) and, when `rsvg-convert` is installed, as PNG
(palette-reduced when Pillow is importable).

Run: `.venv/bin/python scripts/make_screenshots.py [--out assets]`
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZE = (120, 36)
BUDGET_TOKENS = 1200  # small enough that the third turn trims, above twice the instructions + tool schemas
PROMPTS = ("read README.md", "search TODO in src", "read src/server.py", "thanks")

DEMO_FILES = {
    "README.md": "# Demo service\n\nA small HTTP service used to show co-tui.\n\n## Run\n\n"
    "`python -m demo` starts it on port 8000.\n\n## Layout\n\n- `src/server.py`: the handlers\n"
    "- `src/store.py`: the storage\n",
    "src/server.py": "".join(
        f"def handle_{name}(request):\n    # TODO: validate the {name} payload\n    return store.{name}(request.json)\n\n\n"
        for name in ("create", "read", "update", "delete", "list", "search", "export", "import")
    ),
    "src/store.py": "class Store:\n    def __init__(self, path):\n        self.path = path  # TODO: lock the file\n",
}


def demo_workspace(base: Path) -> Path:
    workspace = base / "demo"
    for name, text in DEMO_FILES.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return workspace


async def shoot(out: Path, workspace: Path) -> list[Path]:
    """Drive the app through the scenes; return the SVGs written."""
    from co_tui.config import load_settings
    from co_tui.tui.app import CoTuiApp

    app = CoTuiApp(load_settings(), workspace)
    saved: list[Path] = []

    def save(name: str) -> None:
        saved.append(Path(app.save_screenshot(f"{name}.svg", str(out))))

    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: app.session is not None)
        app.chat.prompt.cursor_blink = False  # a steady frame
        for prompt in PROMPTS:
            app.chat.prompt.load_text(prompt)
            await pilot.press("enter")
            await _until(pilot, lambda: not app.session.busy and not any(w.is_running for w in app.workers))
        banners = list(app.chat.query("TrimBanner"))
        if not banners:
            raise SystemExit(f"no trim banner after {len(PROMPTS)} turns at {BUDGET_TOKENS} tokens: raise the turns")
        await pilot.click(banners[-1].query_one("CollapsibleTitle"))  # expand the newest banner
        await pilot.pause()
        save("conversation")
        await pilot.press("f2")
        await pilot.pause(0.3)
        save("history-inspector")
        await pilot.press("escape")
        await pilot.press("f1")
        await pilot.pause(0.3)
        save("help")
    return saved


async def _until(pilot, predicate, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise SystemExit("the app did not get there in time")
        await pilot.pause(0.05)
    await pilot.pause()


def to_png(svg: Path) -> Path | None:
    """PNG next to the SVG via rsvg-convert (None when it is not installed)."""
    if shutil.which("rsvg-convert") is None:
        return None
    from svg_png import svg_to_png  # beside this script (rsvg-convert drops a text run's edge spaces)

    png = svg_to_png(svg, svg.with_suffix(".png"))
    try:  # a terminal has few colours: a 256-colour palette makes the file about 3x smaller
        from PIL import Image
    except ImportError:
        return png
    with Image.open(png) as image:
        small = image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(png, optimize=True)
    return png


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "assets")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    # A fixed path, not a random temp name: the workspace path is in the instructions the model is
    # sent, so a name of other characters would shift the token figures shown from run to run.
    base = Path(tempfile.gettempdir()) / "co-tui-screenshots"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    try:
        for name in [n for n in os.environ if n.startswith("CO_TUI_") or n.endswith("_API_KEY")]:
            del os.environ[name]
        os.environ.update(
            CO_TUI_DATA_DIR=str(base / "data"),
            CO_TUI_CONFIG_FILE=str(base / "config.toml"),
            CO_TUI_CONTEXT_BUDGET_TOKENS=str(BUDGET_TOKENS),
            TEXTUAL_ANIMATIONS="none",
            PYDANTIC_AI_NO_BANNER="1",  # pydantic-ai's first-run banner would land in this script's output
        )
        workspace = demo_workspace(base)
        os.chdir(workspace)
        sys.path.insert(0, str(ROOT))
        for svg in asyncio.run(shoot(args.out, workspace)):
            png = to_png(svg)
            print(svg.relative_to(ROOT) if svg.is_relative_to(ROOT) else svg, "+ png" if png else "")
    finally:
        os.chdir(ROOT)
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
