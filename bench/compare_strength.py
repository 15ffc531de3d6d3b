"""Two saved ``bench_strength`` runs compared on the deals both played: each one's wins (Wilson
95% interval), mean margin (standard error) and CPU a decision, then the paired difference of
margins and the games that flipped, with McNemar's exact p-value.

    .venv/bin/python bench/bench_strength.py --game zapotec --pairing ismcts-automaton \\
        --iterations 2000 --games 200 --first-deal 800 --save base.json
    .venv/bin/python bench/bench_strength.py ... --ismcts-option prior=600 --save prior.json
    .venv/bin/python bench/compare_strength.py prior.json base.json

Either run may still be going (its file is rewritten as each deal ends): the comparison is of
the deals both files hold. Decide how many deals a comparison needs before starting it; an
early look flatters whichever side is ahead by chance.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(CHECKOUT))

from bench.bench_strength import load_run, paired_report, summary  # noqa: E402


def describe(path: Path, plan: dict[str, Any]) -> str:
    """The file, with the bot and the options its run was played with."""
    options = ", ".join(f"{k}={v}" for k, v in plan.get("bot_options", {}).items())
    extra = "".join(f", {k}={v}" for k, v in plan.get("game_options", {}).items())
    return f"{path} ({plan.get('game_id')}{extra}, {plan.get('pairing')}: {options})"


def compare(new_path: Path, old_path: Path) -> str:
    """The report's lines; a one-line error if the files share no deal or played different games."""
    new_plan, new = load_run(new_path, "compare")
    old_plan, old = load_run(old_path, "compare")
    for key in ("game_id", "pairing", "game_options"):
        if new_plan.get(key) != old_plan.get(key):
            raise SystemExit(
                f"error: {new_path} and {old_path} played different games ({key} differs): nothing to pair"
            )
    both = sorted({d.deal for d in new} & {d.deal for d in old})
    if not both:
        raise SystemExit(f"error: {new_path} and {old_path} share no deal: play the same --first-deal range")
    new = [d for d in new if d.deal in both]
    old = [d for d in old if d.deal in both]
    if len(both) == 1:
        deals = f"deal {both[0]}"
    elif both == list(range(both[0], both[-1] + 1)):
        deals = f"deals {both[0]}-{both[-1]}"
    else:
        deals = f"{both[0]} to {both[-1]}, with gaps"
    return "\n".join(
        [
            f"on the {len(both)} deals both played ({deals}):",
            "  " + summary(describe(new_path, new_plan), new, None),
            "  " + summary(describe(old_path, old_plan), old, None),
            "  paired (the first less the second): " + paired_report(new, old),
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("new", type=Path, help="a file bench_strength --save wrote (the candidate)")
    parser.add_argument("old", type=Path, help="another, on the same deals (the baseline)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    print(compare(args.new, args.old))


if __name__ == "__main__":
    main()
