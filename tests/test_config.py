"""Settings precedence (CLI > env > TOML > defaults) and one-line errors naming the source."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from cli_process import call_co_tui

from co_tui.config import Settings, SettingsError, load_settings
from co_tui.paths import ensure_private_dir


def write_config(text: str) -> Path:
    path = Path(os.environ["CO_TUI_CONFIG_FILE"])
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_match_design() -> None:
    s = load_settings()
    assert (s.model, s.summarization_model, s.tool_output_trim_chars, s.max_history_messages) == (
        "offline",
        None,
        2000,
        500,
    )
    assert (s.context_budget_tokens, s.compact_threshold, s.context_strategy) == (0, 0.8, "summarize")
    assert (s.summarizer_cooldown_s, s.allow_shell) == (600.0, False)


def test_governance_policy_default_follows_the_setting() -> None:
    """One default for the message limit (docs/context-governance.md, "Why 500 messages"): a policy
    built without the setting counts against the same limit as the settings' default."""
    from co_tui.governance import GovernancePolicy

    assert GovernancePolicy(budget_tokens=1000).max_history_messages == load_settings().max_history_messages == 500


def test_precedence_cli_over_env_over_toml(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config('model = "from-toml"\nmax_history_messages = 12\ncompact_threshold = 0.5\n')
    monkeypatch.setenv("CO_TUI_MODEL", "from-env")
    monkeypatch.setenv("CO_TUI_MAX_HISTORY_MESSAGES", "20")
    s = load_settings(model="from-cli")
    assert s.model == "from-cli"
    assert s.max_history_messages == 20
    assert s.compact_threshold == 0.5
    assert load_settings().model == "from-env"


def test_data_dir_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CO_TUI_DATA_DIR", str(tmp_path / "d"))
    assert load_settings().resolved_data_dir == tmp_path / "d"


@pytest.mark.parametrize(
    ("env", "value", "expect"),
    [
        ("CO_TUI_TOOL_OUTPUT_TRIM_CHARS", "lots", "environment variable CO_TUI_TOOL_OUTPUT_TRIM_CHARS"),
        ("CO_TUI_CONTEXT_BUDGET_TOKENS", "-5", "environment variable CO_TUI_CONTEXT_BUDGET_TOKENS"),
        ("CO_TUI_CONTEXT_STRATEGY", "magic", "environment variable CO_TUI_CONTEXT_STRATEGY"),
        ("CO_TUI_COMPACT_THRESHOLD", "1.5", "environment variable CO_TUI_COMPACT_THRESHOLD"),
    ],
)
def test_bad_env_value_names_setting_and_source(
    monkeypatch: pytest.MonkeyPatch, env: str, value: str, expect: str
) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(SettingsError) as info:
        load_settings()
    message = str(info.value)
    assert "\n" not in message
    assert expect in message
    assert env.removeprefix("CO_TUI_").lower() in message


def test_bad_toml_value_names_file() -> None:
    path = write_config("max_history_messages = -3\n")
    with pytest.raises(SettingsError, match=f"max_history_messages.*config file {path}"):
        load_settings()


def test_malformed_toml_is_one_line() -> None:
    path = write_config("model = [unclosed\n")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert str(path) in str(info.value) and "TOML" in str(info.value)


def test_unknown_toml_key_is_refused() -> None:
    write_config('modle = "typo"\n')
    with pytest.raises(SettingsError, match="unknown setting 'modle'"):
        load_settings()


def test_cli_value_error_names_flag() -> None:
    with pytest.raises(SettingsError, match="on the command line"):
        load_settings(model="")


def test_private_dir_mode(tmp_path: Path) -> None:
    d = ensure_private_dir(tmp_path / "a" / "b")
    assert stat.S_IMODE(d.stat().st_mode) == 0o700


@pytest.mark.parametrize(
    "env",
    [{"CO_TUI_TOOL_OUTPUT_TRIM_CHARS": "lots"}, {"CO_TUI_CONTEXT_STRATEGY": "nope"}],
)
def test_cli_exits_2_with_one_line(env: dict[str, str]) -> None:
    proc = call_co_tui("-p", "hello", env=env)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert list(env)[0] in lines[0]


def test_settings_fields_are_the_design_contract() -> None:
    expected = {
        "model",
        "summarization_model",
        "tool_output_trim_chars",
        "max_history_messages",
        "context_budget_tokens",
        "compact_threshold",
        "context_strategy",
        "summarizer_cooldown_s",
        "data_dir",
        "allow_shell",
    }
    assert expected <= set(Settings.model_fields)


def test_compact_target_default_and_range(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().compact_target == 0.6
    monkeypatch.setenv("CO_TUI_COMPACT_TARGET", "0.8")
    assert load_settings().compact_target == 0.8
    for bad in ("0.1", "0.96", "1.5", "lots"):
        monkeypatch.setenv("CO_TUI_COMPACT_TARGET", bad)
        with pytest.raises(SettingsError) as info:
            load_settings()
        message = str(info.value)
        assert "\n" not in message and "compact_target" in message and "CO_TUI_COMPACT_TARGET" in message


def test_message_limit_zero_disables_it_and_small_limits_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CO_TUI_MAX_HISTORY_MESSAGES", "0")
    assert load_settings().max_history_messages == 0
    monkeypatch.setenv("CO_TUI_MAX_HISTORY_MESSAGES", "5")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert "\n" not in str(info.value) and "max_history_messages" in str(info.value) and "at least 8" in str(info.value)


# --- data_dir handling never damages a directory ---------------------------------------------------


def test_existing_data_dir_keeps_its_mode(tmp_path: Path) -> None:
    from co_tui.paths import loose_dir_warning

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # like /tmp
    assert ensure_private_dir(shared) == shared
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    assert "readable by other users (mode 1777)" in (loose_dir_warning(shared) or "")
    private = ensure_private_dir(tmp_path / "new" / "dir")
    assert stat.S_IMODE(private.stat().st_mode) == 0o700 and loose_dir_warning(private) is None


def test_store_in_a_shared_dir_leaves_it_as_it_was_and_warns(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    ws = tmp_path / "ws"
    ws.mkdir()
    proc = call_co_tui("-p", "hello", cwd=ws, env={"CO_TUI_DATA_DIR": str(shared)})
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    assert stat.S_IMODE((shared / "sessions.db").stat().st_mode) == 0o600
    assert proc.stderr.splitlines() == [
        f"co-tui: warning: data dir {shared} is readable by other users (mode 1777); your saved conversations "
        f"are in it (chmod 700 {shared} to make it private)"
    ]


@pytest.mark.parametrize(
    ("value", "why"),
    [("", "must not be empty"), ("data", "must be an absolute path"), ("./x", "must be an absolute path")],
)
def test_empty_or_relative_data_dir_is_a_settings_error(value: str, why: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    os.chmod(ws, 0o755)
    proc = call_co_tui("-p", "hello", cwd=ws, env={"CO_TUI_DATA_DIR": value})
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "setting data_dir" in proc.stderr and why in proc.stderr
    assert "CO_TUI_DATA_DIR" in proc.stderr
    assert list(ws.iterdir()) == [] and stat.S_IMODE(ws.stat().st_mode) == 0o755  # nothing written, no chmod


def test_config_file_that_is_a_directory_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "config.toml"
    folder.mkdir()
    monkeypatch.setenv("CO_TUI_CONFIG_FILE", str(folder))
    with pytest.raises(SettingsError, match="is a directory"):
        load_settings()
