"""Model resolution: a model string (`anthropic:…`, `openai:…`, `ollama:…`, `offline`) to a pydantic-ai Model.

Everything pydantic-ai or provider-SDK related is imported inside the functions: importing this
module (the TUI does, at start-up) loads neither. Problems a user can fix — a missing API key, an
unknown provider, an optional SDK that is not installed — raise `ModelConfigError` with one line.

Retries and timeouts come from `Settings` and are handed to pydantic-ai as the model's default
`ModelSettings`: `max_retries` (the provider SDK's own retry loop: 429/5xx/connection errors with
backoff) and `timeout` (the SDK's per-attempt HTTP timeout; on a stream it bounds each wait for the
next chunk, so long answers are not cut off).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from co_tui.agent.providers import PROVIDER_ALIASES, provider_of_bare_name, provider_of_prefix

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from co_tui.config import Settings

OFFLINE = "offline"

EXAMPLES = "anthropic:claude-sonnet-4-5, openai:gpt-5, openai-chat:gpt-4o, ollama:llama3.2 or offline"


class ModelConfigError(Exception):
    """A model that cannot be used as configured. `str(err)` is one line for the user (exit 1)."""


def resolve_model(name: str, settings: Settings) -> Model:
    """The pydantic-ai `Model` for `name` (`provider:model`, or `offline`), with retries/timeouts from `settings`.

    Raises `ModelConfigError` (one line) for an empty or unknown name, a missing API key or base
    URL (naming the variable), or a provider whose optional SDK is not installed (naming the pip
    extra). Builds clients only: no network request is made here.
    """
    name = (name or "").strip()
    if name == OFFLINE:
        from co_tui.agent.offline import offline_model
        from co_tui.agent.pricing_data import deferred

        with deferred():  # the offline model has no price: the table loads after start-up
            return offline_model()
    provider, sep, model_name = name.partition(":")
    if not sep or not provider or not model_name:
        raise ModelConfigError(_unknown_model_message(name))
    provider = PROVIDER_ALIASES.get(provider, provider)
    _check_env(provider, name)
    canonical = f"{provider}:{model_name}"
    try:
        from pydantic_ai.exceptions import UserError
        from pydantic_ai.models import infer_model
    except ImportError as exc:  # pragma: no cover - pydantic-ai is a hard dependency
        raise ModelConfigError(f"pydantic-ai is not installed ({exc})") from None
    try:
        model = infer_model(canonical)
    except ImportError as exc:
        raise ModelConfigError(_missing_sdk_message(name, provider, str(exc))) from None
    except UserError as exc:
        raise ModelConfigError(_user_error_message(name, str(exc))) from None
    except Exception as exc:  # SDK constructors raise their own error types
        raise ModelConfigError(f"cannot set up model {name}: {_first_line(str(exc))}") from None
    return _with_settings(model, settings)


def context_window_of(model: Model) -> int | None:
    """The model's context window in tokens from its pydantic-ai profile, or None when unknown.

    pydantic-ai fills the profile from the provider and from genai-prices' bundled data (no
    network). Callers fall back to `Settings.fallback_context_window` on None.
    """
    try:
        window = model.context_window
    except Exception:  # an unusual Model subclass without a profile
        return None
    return window if isinstance(window, int) and window > 0 else None


def is_offline(model: Model | str) -> bool:
    """True for the built-in offline model (or the name `offline`)."""
    if isinstance(model, str):
        return model.strip() == OFFLINE
    from co_tui.agent.offline import OfflineModel

    return isinstance(model, OfflineModel)


def _with_settings(model: Model, settings: Settings) -> Model:
    """`model` rebuilt with co-tui's retry/timeout defaults, keeping its provider (and client)."""
    from pydantic_ai.settings import ModelSettings

    # Only what the model class forwards: pydantic-ai warns about the others on every request.
    unsupported: frozenset[str] = getattr(type(model), "unsupported_settings", frozenset())
    defaults = ModelSettings()
    if "max_retries" not in unsupported:
        defaults["max_retries"] = settings.max_retries
    if "timeout" not in unsupported:
        defaults["timeout"] = settings.request_timeout_s
    if model.settings:
        defaults = ModelSettings(**{**defaults, **model.settings})
    # The concrete class's constructor (model name first, as every provider model takes it), not `Model`'s.
    rebuild: Callable[..., Model] = type(model)
    try:
        return rebuild(model.model_name, provider=model.provider, settings=defaults)
    except TypeError:
        # A model class with another constructor: keep it as inferred, with the SDK's defaults.
        return model


def _check_env(provider: str, name: str) -> None:
    known = provider_of_prefix(provider)
    needed = known.required_env if known is not None else ()
    if not needed or any(os.environ.get(var) for var in needed):
        return
    var = needed[0]
    if provider == "ollama":
        raise ModelConfigError(
            "OLLAMA_BASE_URL is not set: export it (e.g. http://localhost:11434/v1) or choose --model offline"
        )
    raise ModelConfigError(f"{var} is not set: export it or choose --model offline (model {name})")


def _unknown_model_message(name: str) -> str:
    if not name:
        return f"no model given: use provider:model, e.g. {EXAMPLES}"
    bare = name.rstrip(":")
    family = provider_of_bare_name(bare)
    guess = f"{family.key}:{bare}" if family is not None else None
    hint = f" (did you mean {guess}?)" if guess and ":" not in bare else ""
    return f"unknown model {name!r}{hint}: use provider:model, e.g. {EXAMPLES}"


def _missing_sdk_message(name: str, provider: str, detail: str) -> str:
    extra = re.search(r"pydantic-ai-slim\[([\w-]+)\]", detail)
    package = f'"pydantic-ai-slim[{extra.group(1)}]"' if extra else "the provider's SDK"
    return f"model {name} needs an optional SDK for {provider} that is not installed: pip install {package}"


def _user_error_message(name: str, detail: str) -> str:
    if detail.startswith("Unknown model"):
        provider = name.partition(":")[0]
        return f"unknown model provider {provider!r} in {name!r}: use e.g. {EXAMPLES}"
    variable = re.search(r"`([A-Z][A-Z0-9_]*(?:KEY|URL|TOKEN|REGION|PROJECT)[A-Z0-9_]*)`", detail)
    if variable:
        return f"{variable.group(1)} is not set: export it or choose --model offline (model {name})"
    return f"cannot set up model {name}: {_first_line(detail)}"


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or ["unknown error"])[0][:300]
