"""Part 2's edits counted in CPU instructions (callgrind), for figures no load can move.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/instructions.py
    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/instructions.py --rev 2ae1a61

The machine the benchmark's milliseconds come from drifts by up to 1.6× within the
hour; an instruction count does not.  Valgrind's callgrind counts every instruction the
process runs, so this runs the busy scenario's window (as part 2 does: 1280×800, the
same edits) twice per view under callgrind, once with 10 edits and once with 40, and
reports the difference over the 30 extra edits: the instructions of one edit, start-up
and teardown cancelled out.  Repeated runs agree to within about 1.5 %.

What is counted is the plot's work for an edit: the keystroke, the model, the plot's
items, its paint and what the plot does after it (the sweep's legend placement).  The
panels around the plot (results, chips, op bounds), which follow the plot's paint and
are outside part 2's figure, are left out (``--panels`` counts them too).  ``--paint``
counts the plot's paints alone (callgrind's ``--toggle-collect`` on
``QGraphicsView::paintEvent``): the stage the keystroke's other work cannot blur.

With ``--rev REV``, ``REV`` is checked out into a temporary git worktree and counted the
same way, beside this tree: a change measured in instructions, not minutes of a noisy
machine.  Instructions are not time (a cache miss costs more than an add), so the
milliseconds of part 2 stay the figures of record; this is the tool for telling whether
a change made an edit cheaper.  It counts the work on both sides of the plot's paint:
a change that moves work from before the paint to after it (the legend's corner,
chosen after the paint) shortens part 2's figure without showing here.  Needs
``valgrind`` (Debian: ``apt install valgrind``);
each count takes a few minutes (valgrind runs the process ~50× slower).  It prints
figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
VIEWS = ("roofline", "sweep")
FEW, MANY = 10, 40
PASSES = 12  # event-loop passes after each edit's paint (its 0-ms timers have run by then)


def _child(view: str, edits: int, panels: bool) -> None:
    """Open the busy window, make ``edits`` edits in ``view``, exit (run under callgrind).

    The tree whose code runs is the one on ``sys.path`` first (``ROOFGUI_TREE``)."""
    tree = Path(os.environ.get("ROOFGUI_TREE", str(ROOT))).resolve()
    sys.path.insert(0, str(HERE))  # (this tree's harness: the same edits for both sides)
    import bench_edit as be
    from _paint import PaintProbe, until_painted, warm_paint

    # the app's code from ``tree`` (the harness put this tree on the path)
    sys.path[:] = [q for q in sys.path if not q or Path(q).resolve() != ROOT]
    sys.path.insert(0, str(tree))
    import roofgui

    if Path(roofgui.__file__).resolve().parents[1] != tree:
        raise SystemExit(f"roofgui came from {roofgui.__file__}, not {tree}")
    tmp = Path(tempfile.mkdtemp(prefix="roofgui-instr-"))
    os.environ["ROOFGUI_HOME"] = str(tmp / "home")
    app, w = be.open_window(tmp)
    plot, dim = be.show_view(w, view)  # (what part 2 edits)
    probe = PaintProbe(plot.viewport())
    slow = 3600.0  # (valgrind: ~50× slower than the bare machine)
    warm_paint(app, [probe], w, timeout=slow)
    if not panels:
        # the panels' update, which follows the plot's paint: not started (the live
        # evaluator's hop timer starts it; older revisions may name it otherwise)
        hop = getattr(w.live, "hop_timer", None) or getattr(w.live, "panels_timer", None)
        if hop is None:
            raise SystemExit("cannot leave the panels out in this revision (no hop_timer)")
        hop.timeout.disconnect()
    edit = w.form.editor.dim_edit(dim)
    for v in be.fresh_values(float(edit.value() or 256), edits):
        t = str(v)
        until_painted(app, [probe], lambda: (edit.setText(t), edit.textEdited.emit(t)),
                      timeout=slow)
        for _ in range(PASSES):  # (a count of passes, not a time: the same work however
            app.processEvents()  # slowly valgrind runs; the deferred placement included)
    sys.stdout.flush()
    os._exit(0)


def count(tree: Path, view: str, edits: int, panels: bool, paint: bool = False) -> int:
    """Instructions of a whole child run (callgrind's total; with ``paint``, those inside
    the graphics views' paint events alone)."""
    with tempfile.TemporaryDirectory(prefix="roofgui-cg-") as d:
        env = dict(os.environ, ROOFGUI_TREE=str(tree))
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg.out"]
        if paint:
            cmd.append("--toggle-collect=QGraphicsView::paintEvent*")
        cmd += [sys.executable, str(Path(__file__).resolve()), "--child", view, str(edits)]
        if panels:
            cmd.append("--panels")
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=7200)
        m = re.search(r"Collected\s*:\s*([\d,]+)", r.stderr)
        if r.returncode != 0 or m is None:
            raise SystemExit(f"callgrind run failed ({tree}, {view}, {edits} edits):\n"
                             f"{r.stdout[-2000:]}{r.stderr[-3000:]}")
        return int(m.group(1).replace(",", ""))


def per_edit(tree: Path, views, panels: bool, jobs: int,
             paint: bool = False) -> dict[str, float]:
    """Instructions of one edit per view: (count(MANY) - count(FEW)) / (MANY - FEW)."""
    runs = [(v, n) for v in views for n in (FEW, MANY)]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        got = dict(zip(runs, pool.map(lambda r: count(tree, r[0], r[1], panels, paint),
                                      runs)))
    return {v: (got[(v, MANY)] - got[(v, FEW)]) / (MANY - FEW) for v in views}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], int(sys.argv[3]), "--panels" in sys.argv)
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rev", help="also count this revision (a commit, tag, branch)")
    p.add_argument("--views", default=",".join(VIEWS), help="roofline,sweep (default both)")
    p.add_argument("--panels", action="store_true",
                   help="count the panels' update after the plot's paint too")
    p.add_argument("--paint", action="store_true",
                   help="count the plot's paints alone (QGraphicsView::paintEvent)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="valgrind runs at once (default: one per CPU)")
    args = p.parse_args()
    views = [v for v in args.views.split(",") if v]
    if any(v not in VIEWS for v in views):
        raise SystemExit(f"views: {', '.join(VIEWS)}")
    if subprocess.run(["valgrind", "--version"], capture_output=True).returncode != 0:
        raise SystemExit("needs valgrind (Debian: apt install valgrind)")
    what = "plot and panels" if args.panels else "the plot's work, panels left out"
    if args.paint:
        what = "the graphics views' paints alone"
    sides: list[tuple[str, dict[str, float]]] = []
    if args.rev:
        sha = subprocess.run(["git", "rev-parse", "--verify", args.rev + "^{commit}"],
                             cwd=ROOT, capture_output=True, text=True)
        if sha.returncode != 0:
            raise SystemExit(f"not a revision of this repository: {args.rev}")
        with tempfile.TemporaryDirectory(prefix="roofgui-rev-") as d:
            tree = Path(d) / "tree"
            subprocess.run(["git", "worktree", "add", "--detach", str(tree),
                            sha.stdout.strip()], cwd=ROOT, check=True, capture_output=True)
            try:
                sides.append((args.rev, per_edit(tree, views, args.panels, args.jobs, args.paint)))
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                               capture_output=True)
    sides.append(("this tree", per_edit(ROOT, views, args.panels, args.jobs, args.paint)))
    print(f"Instructions per edit ({what}; {MANY} edits less {FEW}, over {MANY - FEW})")
    print()
    head = " | ".join(name for name, _ in sides)
    print(f"| View | {head} |" + (" change |" if len(sides) == 2 else ""))
    print("|---|" + "---|" * len(sides) + ("---|" if len(sides) == 2 else ""))
    for v in views:
        cells = " | ".join(f"{got[v] / 1e6:.2f} M" for _, got in sides)
        row = f"| {v} | {cells} |"
        if len(sides) == 2:
            a, b = sides[0][1][v], sides[1][1][v]
            row += f" {100 * (b - a) / a:+.1f} % |"
        print(row)


if __name__ == "__main__":
    main()
