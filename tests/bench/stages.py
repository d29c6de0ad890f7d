"""Where one edit's time goes: part 2's edit, timed stage by stage.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/stages.py --view sweep
    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/stages.py --view roofline --edits 300

The busy window of part 2 (:mod:`bench_edit`), the same edits, and per edit the time
from the keystroke to the end of each stage: the field's handlers (parse, the
document, the views' re-sync), the event-loop pass that paints the typed character and
reaches the window's evaluation, the evaluation (for the sweep: the model's
``sweep_scenario``, the plot's ``sweep_geometry``, the plot's items), the wait for the
plot's paint, and the paint.  It prints the median of each over the edits, and the
whole.  To judge a change, run it on both sides alternately (``--tree`` runs another
checkout's code, e.g. a ``git worktree``): this machine's speed drifts more within the
hour than most changes move a stage.  It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--view", choices=["roofline", "sweep"], default="sweep")
    p.add_argument("--edits", type=int, default=150)
    p.add_argument("--tree", help="the checkout whose code runs (default: this one)")
    a = p.parse_args()
    here = Path(__file__).resolve().parent
    tree = Path(a.tree).resolve() if a.tree else here.parent.parent
    sys.path.insert(0, str(here))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import _common  # noqa: F401  (puts this checkout on sys.path)

    sys.path.insert(0, str(tree))  # (ahead of this checkout: its roofgui runs)
    import bench_edit as be
    import pyqtgraph as pg
    from _paint import PaintProbe, settle, until_painted, warm_paint

    marks: dict[str, float] = {}

    def timed(obj, name: str, tag: str) -> None:
        real = getattr(obj, name)

        def wrapper(*args, **kwargs):
            marks.setdefault(tag + "0", time.perf_counter())
            try:
                return real(*args, **kwargs)
            finally:
                marks[tag + "1"] = time.perf_counter()
        setattr(obj, name, wrapper)

    timed(pg.GraphicsView, "paintEvent", "paint")  # (before any view exists)
    tmp = Path(tempfile.mkdtemp(prefix="roofgui-stages-"))
    os.environ["ROOFGUI_HOME"] = str(tmp / "home")
    app, w = be.open_window(tmp)
    import roofgui.gui.main_window as mw
    import roofgui.plotting.sweep_plot as sp

    plot, dim = be.show_view(w, a.view)
    probe = PaintProbe(plot.viewport())
    warm_paint(app, [probe], w)
    import gc

    gc.collect()
    gc.freeze()
    live = w.live
    timed(live, "refresh", "refresh")
    live.timer.timeout.disconnect()  # (connected to the method itself: to the wrapper now)
    live.timer.timeout.connect(live.refresh)
    timed(mw, "sweep_scenario" if a.view == "sweep" else "evaluate_scenario", "model")
    timed(sp.sg, "sweep_geometry", "geometry")
    edit = w.form.editor.dim_edit(dim)
    values = be.fresh_values(float(edit.value() or 256), a.edits + 20)

    def typed(text: str):
        def do() -> None:
            marks.clear()
            marks["edit"] = time.perf_counter()
            edit.setText(text)
            edit.textEdited.emit(text)
            marks["edited"] = time.perf_counter()
        return do

    rows = []
    for i, v in enumerate(values):
        total, _ = until_painted(app, [probe], typed(str(v)))
        settle(app, [probe])
        if i >= 20:  # (the first edits warm up)
            rows.append((dict(marks), total))

    def med(f) -> float:
        return statistics.median(f(m) for m, _ in rows) * 1e3

    print(f"{a.view} edit, {len(rows)} edits, medians (ms), code from {tree}")
    print(f"  keystroke: field, document, views    {med(lambda m: m['edited'] - m['edit']):6.2f}")
    print(f"  event loop to the evaluation         {med(lambda m: m['refresh0'] - m['edited']):6.2f}")
    model = "sweep_scenario" if a.view == "sweep" else "evaluate_scenario"
    print(f"  model ({model})".ljust(39) + f"{med(lambda m: m['model1'] - m['model0']):6.2f}")
    if a.view == "sweep":
        print(f"  geometry (sweep_geometry)            {med(lambda m: m['geometry1'] - m['geometry0']):6.2f}")
        print(f"  the plot's items                     {med(lambda m: m['refresh1'] - m['geometry1']):6.2f}")
    else:
        print(f"  the plot's geometry and items        {med(lambda m: m['refresh1'] - m['model1']):6.2f}")
    print(f"  evaluation and update, in all        {med(lambda m: m['refresh1'] - m['refresh0']):6.2f}")
    print(f"  wait for the plot's paint            {med(lambda m: m['paint0'] - m['refresh1']):6.2f}")
    print(f"  the paint                            {med(lambda m: m['paint1'] - m['paint0']):6.2f}")
    print(f"  keystroke to the end of the paint    {med(lambda m: m['paint1'] - m['edit']):6.2f}")
    print(f"  part 2's figure (the pass's end)     {statistics.median(t for _, t in rows) * 1e3:6.2f}")
    sys.stdout.flush()
    os._exit(0)  # skip Qt teardown


if __name__ == "__main__":
    main()
