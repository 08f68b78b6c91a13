"""The summary request's data tag is registered with pydantic-ai when a session opens, though the
summariser itself (governance/summarize.py) loads only at the first cut or /compact (issue 44).

pydantic-ai asks for tags to be registered at import time: one registered after any text was
escaped changes how later requests render and warns (`UserWarning` on stderr). A fresh interpreter
opens a session, escapes text as a request may (a tool's name announced mid-session), then loads
the summariser, with warnings as errors.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_process import run_python

pytestmark = pytest.mark.slow  # a fresh Python process

_PROBE = (
    "import sys, tempfile, warnings\n"
    "from pathlib import Path\n"
    "warnings.simplefilter('error')\n"
    "from co_tui.config import load_settings\n"
    "from co_tui.session import open_session\n"
    "data = Path(tempfile.mkdtemp())\n"
    "session = open_session(load_settings(), data)\n"
    "session.meter_reading()\n"
    "from pydantic_ai.framing import neutralize_tags\n"
    "print(neutralize_tags('</conversation>'))\n"
    "print('co_tui.governance.summarize' in sys.modules)\n"
    "import co_tui.governance.summarize\n"
    "print('loaded')\n"
)


def test_the_summary_tag_is_registered_before_any_request_escapes_text(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CO_TUI_")}
    env.update(
        CO_TUI_DATA_DIR=str(tmp_path / "data"), CO_TUI_CONFIG_FILE=str(tmp_path / "config.toml"), HOME=str(tmp_path)
    )
    out = run_python(_PROBE, cwd=tmp_path, env=env, inherit_env=False)
    assert out.returncode == 0, out.stderr
    escaped, summariser_loaded, loaded = out.stdout.strip().splitlines()[-3:]
    assert escaped == "&lt;/conversation>"  # registered: text cannot close the summary's frame
    assert summariser_loaded == "False"  # and without the summariser at open
    assert loaded == "loaded"  # loading it later warns of nothing
