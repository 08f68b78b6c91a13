"""How many cases a Hypothesis property runs: the profiles (registered in tests/conftest.py).

`ci`, the default (`make test`, CI): `CI_EXAMPLES` cases a property, and a property that needs
another count says so with `examples(n)` and why; with these, tests/governance/test_properties.py
runs the ~11,500 generated histories docs/context-governance.md states. `dev`
(`HYPOTHESIS_PROFILE=dev`): a tenth of every count, for a quick loop while editing. Both: no
per-case deadline and no too-slow health check (a loaded machine is no failure of the code).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

CI_EXAMPLES = 100
DEV_EXAMPLES = 10
PROFILES = {"ci": CI_EXAMPLES, "dev": DEV_EXAMPLES}


def register_profiles() -> None:
    """Register `ci` and `dev`, and load the one `HYPOTHESIS_PROFILE` names (`ci` unset)."""
    import os

    for name, count in PROFILES.items():
        settings.register_profile(
            name,
            max_examples=count,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def examples(ci_count: int) -> int:
    """`max_examples` for a property that runs `ci_count` cases in the `ci` profile, scaled with the
    loaded profile (`dev`: a tenth). Read when the test module is imported (after the conftest)."""
    return max(1, ci_count * settings.default.max_examples // CI_EXAMPLES)
