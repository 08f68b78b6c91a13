"""What the TUI reads before its settings are built: the data dir (for a resumed conversation) and
the offline model without genai-prices' price table (docs/architecture.md, "Start-up")."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_process import run_python

from co_tui.config import SettingsError, load_settings
from co_tui.paths import data_dir_without_settings


@pytest.mark.parametrize(
    ("env", "toml"),
    [
        ({"CO_TUI_DATA_DIR": "{base}/from-env"}, 'data_dir = "{base}/from-file"\n'),
        ({"co_tui_data_dir": "{base}/lower-case-name"}, ""),
        ({}, 'data_dir = "{base}/from-file"\nmodel = "offline"\n'),
        ({}, 'model = "offline"\n'),
        ({}, ""),
        ({"CO_TUI_DATA_DIR": "~/co-tui-data"}, ""),
    ],
    ids=["env-over-file", "env-any-case", "file", "file-without-it", "default", "home"],
)
def test_the_data_dir_is_where_the_settings_put_it(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], toml: str
) -> None:
    monkeypatch.delenv("CO_TUI_DATA_DIR")
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(base=isolated_env))
    config = isolated_env / "config.toml"
    if toml:
        config.write_text(toml.format(base=isolated_env))
    assert data_dir_without_settings() == load_settings().resolved_data_dir


@pytest.mark.parametrize(
    ("env", "toml"),
    [
        ({"CO_TUI_DATA_DIR": ""}, ""),
        ({"CO_TUI_DATA_DIR": "relative/dir"}, ""),
        ({}, 'data_dir = "relative"\n'),
        ({}, "data_dir = 3\n"),
        ({}, "this is not toml\n"),
    ],
    ids=["empty", "relative", "relative-in-file", "not-a-string", "bad-toml"],
)
def test_an_unclear_data_dir_is_left_to_the_settings(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], toml: str
) -> None:
    """None: the caller builds the settings, whose error names the value and its source."""
    monkeypatch.delenv("CO_TUI_DATA_DIR")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (isolated_env / "config.toml").write_text(toml)
    assert data_dir_without_settings() is None
    with pytest.raises(SettingsError):
        load_settings()


@pytest.mark.slow
def test_the_offline_model_is_built_without_the_price_table(isolated_env: Path) -> None:
    """In a fresh interpreter: building the offline model leaves genai-prices' table unloaded;
    `pricing_data.preload` loads it, and the model still answers."""
    code = (
        "import sys, asyncio\n"
        "from co_tui.config import load_settings\n"
        "from co_tui.agent.models import resolve_model\n"
        "from co_tui.agent import pricing_data\n"
        "import pydantic_ai.models as models\n"
        "hook = models.preload_pricing_data\n"
        "model = resolve_model('offline', load_settings())\n"
        "print('built', 'genai_prices.data' in sys.modules, models.preload_pricing_data is hook)\n"
        "pricing_data.preload()\n"
        "print('preloaded', 'genai_prices.data' in sys.modules)\n"
        "from pydantic_ai import Agent\n"
        "print('answer', bool(Agent(model).run_sync('hello').output))\n"
    )
    out = run_python(code, cwd=isolated_env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["built False True", "preloaded True", "answer True"]


@pytest.mark.slow
@pytest.mark.parametrize("with_file", [False, True], ids=["no-config-file", "config-file"])
def test_tomllib_is_imported_only_for_a_config_file(isolated_env: Path, with_file: bool) -> None:
    """In a fresh interpreter: without a config file, building the settings does not import
    tomllib (~6 ms of the start-up thread); with one, they read it."""
    if with_file:
        (isolated_env / "config.toml").write_text("tool_output_trim_chars = 123\n")
    code = (
        "import sys\n"
        "from co_tui.config import load_settings\n"
        "settings = load_settings()\n"
        "print('tomllib' in sys.modules, settings.tool_output_trim_chars)\n"
    )
    out = run_python(code, cwd=isolated_env)
    assert out.returncode == 0, out.stderr
    imported, trim_chars = out.stdout.split()
    assert imported == str(with_file)
    assert (trim_chars == "123") is with_file
