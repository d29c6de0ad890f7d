"""Part 2 of the benchmark (edit to pixels) for another revision and for this tree, run
back to back, so that a change is judged against the same minutes of the same machine.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/compare.py 442179d --rounds 3

The machine the figures come from drifts by up to 1.6× within the hour, which moves
every absolute figure as much; the ratio against the same-run baseline does not move,
but it cannot compare two revisions whose plots hold different items (the baseline copies
the app's items).  So this checks ``REV`` out into a temporary git worktree and runs
``bench.py --only 2`` alternately there and here, ``--rounds`` times each (REV first),
with the same Python, and prints each run's medians, the median of each side and the
change.  It prints figures and asserts nothing; a run takes about a minute per round and
side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VIEWS = ("roofline", "sweep")


def run_part2(tree: Path) -> dict[str, float]:
    """Median edit-to-pixels seconds per view, from ``tree``'s own benchmark and code."""
    with tempfile.TemporaryDirectory(prefix="roofgui-compare-") as d:
        out = Path(d) / "part2.json"
        env = dict(os.environ)
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        r = subprocess.run([sys.executable, str(tree / "tests" / "bench" / "bench.py"),
                            "--only", "2", "--json", str(out)],
                           cwd=str(tree), env=env, capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            raise SystemExit(f"the benchmark failed in {tree}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
        views = json.loads(out.read_text())["edit"]["views"]
    return {v: float(views[v]["app_s"]["median"]) for v in VIEWS}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("rev", help="the revision to compare this tree with (a commit, tag, branch)")
    p.add_argument("--rounds", type=int, default=3, help="runs of each side (default 3)")
    args = p.parse_args()
    sha = subprocess.run(["git", "rev-parse", "--verify", args.rev + "^{commit}"], cwd=ROOT,
                         capture_output=True, text=True)
    if sha.returncode != 0:
        raise SystemExit(f"not a revision of this repository: {args.rev}")
    with tempfile.TemporaryDirectory(prefix="roofgui-rev-") as d:
        tree = Path(d) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), sha.stdout.strip()],
                       cwd=ROOT, check=True, capture_output=True)
        try:
            runs: dict[str, list[dict[str, float]]] = {"rev": [], "here": []}
            for i in range(max(1, args.rounds)):
                for side, where in (("rev", tree), ("here", ROOT)):
                    got = run_part2(where)
                    runs[side].append(got)
                    print(f"round {i + 1}, {args.rev if side == 'rev' else 'this tree'}: "
                          + ", ".join(f"{v} {got[v] * 1e3:.1f} ms" for v in VIEWS), flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           capture_output=True)
    print()
    print(f"| Edit to pixels, median of the runs' medians | {args.rev} | this tree | change |")
    print("|---|---|---|---|")
    for v in VIEWS:
        a = statistics.median(r[v] for r in runs["rev"]) * 1e3
        b = statistics.median(r[v] for r in runs["here"]) * 1e3
        print(f"| {v} | {a:.1f} ms | {b:.1f} ms | {100 * (b - a) / a:+.0f} % |")


if __name__ == "__main__":
    main()
