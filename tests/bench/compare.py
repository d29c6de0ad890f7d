"""Run the benchmark on another revision and on this checkout, back to back, and print both.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/compare.py REV [--quick]

REV (a commit, branch or tag) is checked out into a temporary git worktree and measured
with this checkout's harness and Python (``bench.py --root``), then this checkout is; so
both tables come from the same minutes of the same machine.  Compare each side's ratios
to its own baseline: they move far less with the machine's load than the milliseconds do.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        raise SystemExit(__doc__)
    rev, extra = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory(prefix="roofgui-compare-") as d:
        tree = Path(d) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev], cwd=ROOT,
                       check=True, capture_output=True)
        try:
            for label, root in ((rev, tree), ("this checkout", ROOT)):
                print(f"## {label}\n", flush=True)
                subprocess.run([sys.executable, str(HERE / "bench.py"), "--root", str(root),
                                *extra], check=True)
                print(flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                           capture_output=True)


if __name__ == "__main__":
    main()
