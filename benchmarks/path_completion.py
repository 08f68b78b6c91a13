"""`@path` completion benchmark (not a test): what one key costs while a mention is typed, in a
workspace of 50 folders × 60 files (3,100 entries, under `WALK_MAX_ENTRIES`), side by side: a walk of
the workspace at every key (how it was first written) against the index walked once, when `@` is
typed, and filtered at each key after it (how the chat screen completes: `ChatScreen._complete_path`).

Best of 5 per case, in ms. Run: `.venv/bin/python benchmarks/path_completion.py`. The host is
shared: the load average is printed.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from co_tui.agent.mentions import complete_paths, walk_index

FRAGMENTS = ("f", "fi", "file_3", "pkg1/", "zz")


def best_ms(run, repeat: int = 5) -> float:
    """The fastest of `repeat` runs of `run()`, in ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> None:
    """Build the workspace, print one row per fragment: walk each key, index each key, and the ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for d in range(1, 51):
            sub = root / f"pkg{d}" / "sub"
            sub.mkdir(parents=True)
            for f in range(1, 61):
                (sub / f"file_{f}.py").touch()
        print(f"load average: {os.getloadavg()[0]:.2f}")
        print(
            f"walk_index (once per mention): {best_ms(lambda: walk_index(root)):.1f} ms, {len(walk_index(root)):,} paths"
        )
        index = walk_index(root)
        print(f"{'fragment':<10} {'walk every key':>16} {'index':>10} {'ratio':>7}")
        for fragment in FRAGMENTS:
            walk = best_ms(lambda f=fragment: complete_paths(root, f))
            indexed = best_ms(lambda f=fragment: complete_paths(root, f, index=index))
            print(f"{fragment:<10} {walk:>13.2f} ms {indexed:>7.2f} ms {walk / max(indexed, 1e-6):>6.1f}x")


if __name__ == "__main__":
    main()
