"""The Textual front end.

Imported before Textual itself, so this is where Textual's frame rate is raised: a key press is
painted by the next frame, and at Textual's default 60 frames/s that wait alone is up to 17 ms of
the key's latency (measured in benchmarks/tui.py while an answer streams: p95 49 -> 40 ms for a
typed letter, 46 -> 25 ms for backspace). Frames are drawn only when something changed, so idle
costs nothing more. `TEXTUAL_FPS` set in the environment still wins.
"""

import os

os.environ.setdefault("TEXTUAL_FPS", "120")
