"""Repeated reads on the shared corpus (issue 44; not a test): how much duplication real agent
transcripts hold, and what deduplicating it at a cut saves (docs/context-governance.md, "Repeated
reads"; docs/performance.md).

1. Duplication: per source of the corpus (`../shared/corpus`), its tool outputs, those of 400
   characters or more (the least the dedup notes), and of those the older copies of an output
   identical to a later one in the same transcript — the copies a cut would turn into notes — with
   their estimated tokens and share of all tool-output tokens.
2. Savings per cut: each transcript replayed request by request (each request the context so far,
   stamped with handles as the transcript keeps them) through `fit_to_budget` at a budget of
   `--share` (0.5) of the whole transcript's estimate, the low-water mark and the minimum cut as
   the policy sets them, the result fed back as the next context; at every cut, the notes it made
   and the tokens they freed (the dedup alone, measured on the cut's input).

Run: `.venv/bin/python benchmarks/dedup.py [--share 0.5] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: a checkout named there is the code measured

from pydantic_ai.messages import ModelRequest, ToolReturnPart  # noqa: E402

from co_tui.governance.dedup import MIN_CHARS, dedupe_outputs  # noqa: E402
from co_tui.governance.defaults import DEFAULT_COMPACT_TARGET  # noqa: E402
from co_tui.governance.handles import stamp_handles  # noqa: E402
from co_tui.governance.markers import separate_markers  # noqa: E402
from co_tui.governance.tokens import content_text, estimate_text_tokens, estimate_tokens  # noqa: E402
from co_tui.governance.trim import fit_to_budget, min_cut_tokens  # noqa: E402
from co_tui.governance.turns import segment  # noqa: E402
from tests.governance.corpus import load_transcript, transcript_files  # noqa: E402


def duplication() -> dict[str, dict[str, int]]:
    """Per source (and `all`): outputs, big outputs, repeated big outputs and tokens."""
    rows: dict[str, Counter[str]] = {}
    for path in transcript_files():
        outputs = [
            content_text(p.content)
            for m in load_transcript(path)
            for p in getattr(m, "parts", ())
            if isinstance(p, ToolReturnPart)
        ]
        seen = Counter(outputs)
        for source in (path.name.split("__")[0], "all"):
            row = rows.setdefault(source, Counter())
            row["transcripts"] += 1
            row["outputs"] += len(outputs)
            row["output_tokens"] += sum(estimate_text_tokens(o) for o in outputs)
            row["big"] += sum(1 for o in outputs if len(o) >= MIN_CHARS)
            row["repeats_any"] += sum(n - 1 for n in seen.values())
            row["repeats"] += sum(n - 1 for o, n in seen.items() if len(o) >= MIN_CHARS)
            row["repeat_tokens"] += sum(
                (n - 1) * estimate_text_tokens(o) for o, n in seen.items() if len(o) >= MIN_CHARS
            )
    return {k: dict(v) for k, v in rows.items()}


def savings(share: float) -> dict[str, float]:
    """Every transcript replayed through `fit_to_budget`; the cuts, the notes and what they freed."""
    cuts = notes = freed_by_dedup = freed = 0
    per_cut: list[int] = []
    for path in transcript_files():
        transcript = stamp_handles(load_transcript(path), 0)
        budget = max(500, int(estimate_tokens(transcript) * share))
        context: list = []
        for message in transcript:
            context.append(message)
            if not isinstance(message, ModelRequest):
                continue  # a request goes out after each request message: a pass runs there
            result = fit_to_budget(
                context,
                budget,
                tool_output_trim_chars=2000,
                target_tokens=int(DEFAULT_COMPACT_TARGET * budget),
                min_cut_tokens=min_cut_tokens(budget),
            )
            if result.events:
                source = separate_markers(context)
                dedup = dedupe_outputs(source, segment(source), estimate_tokens(source))
                cuts += 1
                notes += dedup.deduplicated
                freed_by_dedup += dedup.tokens_before - dedup.tokens_after
                freed += result.tokens_before - result.tokens_after
                per_cut.append(dedup.tokens_before - dedup.tokens_after)
            context = list(result.messages)
    with_dedup = [n for n in per_cut if n]
    return {
        "cuts": cuts,
        "cuts_with_notes": len(with_dedup),
        "notes": notes,
        "freed_per_cut": freed / cuts if cuts else 0.0,
        "dedup_per_cut": freed_by_dedup / cuts if cuts else 0.0,
        "dedup_per_cut_with_notes": statistics.mean(with_dedup) if with_dedup else 0.0,
        "dedup_share_of_freed": freed_by_dedup / freed if freed else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--share", type=float, default=0.5, help="the replay's budget, a share of each transcript")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not transcript_files():
        raise SystemExit("the shared corpus (../shared/corpus beside the checkout) is absent")
    dup = duplication()
    print("1. duplication in the corpus: older copies of an output identical to a later one")
    print(
        f"{'source':12}{'files':>6}{'outputs':>9}{f'>={MIN_CHARS}ch':>8}{'repeats':>9}{'(any size)':>11}{'tokens':>8}{'share':>7}"
    )
    for source, row in sorted(dup.items(), key=lambda kv: kv[0] == "all"):
        share = row["repeat_tokens"] / row["output_tokens"] if row["output_tokens"] else 0.0
        print(
            f"{source:12}{row['transcripts']:>6}{row['outputs']:>9}{row['big']:>8}{row['repeats']:>9}"
            f"{row['repeats_any']:>11}{row['repeat_tokens']:>8,}{share:>7.1%}"
        )
    saved = savings(args.share)
    print(f"\n2. replayed request by request at a budget of {args.share:.0%} of each transcript (fit_to_budget)")
    print(
        f"cuts {saved['cuts']}, of which with notes {saved['cuts_with_notes']}; notes {saved['notes']}; "
        f"tokens freed per cut {saved['freed_per_cut']:,.0f}, of which by the dedup {saved['dedup_per_cut']:,.0f} "
        f"({saved['dedup_share_of_freed']:.1%}); per cut that made notes {saved['dedup_per_cut_with_notes']:,.0f}"
    )
    if args.json:
        args.json.write_text(json.dumps({"duplication": dup, "savings": saved, "share": args.share}))


if __name__ == "__main__":
    main()
