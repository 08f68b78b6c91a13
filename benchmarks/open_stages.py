"""Instructions to open a session, stage by stage (issue 44; not a test): where the work between the
first frame and ready goes, load-independent.

Each stage runs in a fresh interpreter under valgrind (`cachegrind`, no cache simulation,
`PYTHONHASHSEED=0`, the garbage collector off as co-tui runs until ready), in process, no screen:

- `ui`: what the TUI imports before its first frame (`textual.app`, `co_tui.cli`, `co_tui.tui.app`);
- `settings`: then `load_settings()` (pydantic-settings and the `Settings` class);
- `pydantic_ai`: then `import pydantic_ai`;
- `open`: then `open_session(...)` for a new session in an empty data dir, and the meter's reading.

Each count is the whole process to the end of its stage; the table gives each stage's own share
too. With `--base [NAME=]DIR` (another checkout: `git archive <commit> | tar -x -C DIR`) the same
stages of that tree with this environment's packages, side by side. `start_up_cpu.py
--instructions --until ready` counts the real TUI start, whose timers make it move with the load;
these counts move by well under 1%.

Run: `.venv/bin/python benchmarks/open_stages.py [--base base=DIR]`.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from start_up import ROOT, compile_bytecode  # noqa: E402

STAGES = ("ui", "settings", "pydantic_ai", "open")

# The child: run with the checkout first on sys.path, in an empty data dir; stops after its stage.
_CHILD = r"""
import gc; gc.disable()
import os, sys
from pathlib import Path
stage = sys.argv[1]
import textual.app
import co_tui.cli, co_tui.tui.app
if stage == "ui": raise SystemExit
from co_tui.config import load_settings
settings = load_settings()
if stage == "settings": raise SystemExit
import pydantic_ai
if stage == "pydantic_ai": raise SystemExit
from co_tui.session import open_session
open_session(settings, Path(os.environ["CO_TUI_DATA_DIR"])).meter_reading()
"""


def count(checkout: Path, stage: str) -> int:
    """Instructions of one fresh process run to the end of `stage` in `checkout`."""
    with tempfile.TemporaryDirectory() as tmp:
        home, log = Path(tmp), Path(tmp) / "valgrind.log"
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "PYTHONPATH": str(checkout),
            "PYTHONHASHSEED": "0",
            "CO_TUI_DATA_DIR": str(home / "data"),
            "CO_TUI_CONFIG_FILE": str(home / "config.toml"),
        }
        (home / "data").mkdir()
        valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        subprocess.run(
            [*valgrind, f"--log-file={log}", sys.executable, "-c", _CHILD, stage],
            cwd=home,
            env=env,
            check=True,
            capture_output=True,
        )
        found = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text())
        if found is None:
            raise SystemExit(f"{checkout}: no instruction count in valgrind's log")
        return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", action="append", default=[], metavar="[NAME=]DIR", help="another checkout")
    args = parser.parse_args()
    checkouts = {"co-tui": ROOT}
    for spec in args.base:
        name, _, directory = spec.rpartition("=")
        checkouts[name or Path(directory).name] = Path(directory).resolve()
    for checkout in checkouts.values():
        compile_bytecode(Path(sys.executable), checkout)
    counts = {name: [count(checkout, stage) for stage in STAGES] for name, checkout in checkouts.items()}
    print("instructions (valgrind, millions): the whole process to the end of each stage (its own share)")
    print(f"{'':12}" + "".join(f"{stage:>20}" for stage in STAGES))
    for name, totals in counts.items():
        own = [totals[0]] + [b - a for a, b in zip(totals, totals[1:], strict=False)]
        print(f"{name:12}" + "".join(f"{t / 1e6:>10,.0f} ({o / 1e6:>5,.0f})" for t, o in zip(totals, own, strict=True)))
    for name in list(counts)[1:]:
        ratios = "  ".join(
            f"{stage} {a / b:.3f}x" for stage, a, b in zip(STAGES, counts["co-tui"], counts[name], strict=True)
        )
        print(f"co-tui / {name}: {ratios}")


if __name__ == "__main__":
    main()
