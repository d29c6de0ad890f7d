"""Part 5 — peak resident memory of the busy scenario.

Each figure is ``resource.getrusage(RUSAGE_SELF).ru_maxrss`` of a fresh child
process (offscreen, fresh ``ROOFGUI_HOME``):

* ``app``: ``MainWindow`` with the busy scenario (8 chips, 4 ops, a 2,000-point
  sweep) at 1280×800, painted; then the Sweep tab painted; then 50 edits of a
  dimension, each repainted, on both tabs;
* ``app_export``: the same, then a 3840×2160 PNG export of each plot;
* ``baseline``: a bare QApplication with one pyqtgraph PlotWidget, painted.

    python bench_memory.py [--runs 3] [--json OUT]
    python bench_memory.py --child app|app_export|baseline   (prints the KiB)
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import _common  # noqa: F401
from _common import WINDOW_SIZE, emit, summary, write_busy_scenario


def _paint_and_wait(app, widget):
    from _paint import PaintProbe, warm_paint

    probe = PaintProbe(widget.viewport())
    warm_paint(app, [probe], widget.window())
    return probe


def child(kind: str) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tmp = Path(tempfile.mkdtemp(prefix="roofgui-mem-"))
    os.environ["ROOFGUI_HOME"] = str(tmp / "home")
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication(["bench-memory"])
    if kind == "baseline":
        import pyqtgraph as pg

        w = pg.PlotWidget()
        w.resize(*WINDOW_SIZE)
        _paint_and_wait(app, w)
    else:
        from _paint import until_painted
        from roofgui.gui.main_window import MainWindow

        path = write_busy_scenario(tmp / "busy.json")
        w = MainWindow(catalog=None, open_path=str(path), restore=False)
        w.resize(*WINDOW_SIZE)
        for tab, plot, dim in ((0, w.roofline_plot, "B"), (1, w.sweep_plot, "D")):
            w.tabs.setCurrentIndex(tab)
            probe = _paint_and_wait(app, plot)
            edit = w.form.editor.dim_edit(dim)
            start = int(edit.value() or 256)
            for i in range(50):
                text = str(start + 1 + i)

                def do(text=text):
                    edit.setText(text)
                    edit.textEdited.emit(text)

                until_painted(app, [probe], do)
        if kind == "app_export":
            from roofgui.export.render import export_file

            for plot in ("roofline", "sweep"):
                export_file(tmp / f"{plot}.png", w.doc.scenario, w.catalog, plot=plot,
                            width=3840, height=2160)
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(kib, flush=True)
    os._exit(0)


def run(runs: int = 3) -> dict:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    samples: dict[str, list[float]] = {"app": [], "app_export": [], "baseline": []}
    for _ in range(runs):
        for kind in samples:
            r = subprocess.run([sys.executable, __file__, "--child", kind], env=env,
                               capture_output=True, text=True, timeout=600)
            if r.returncode != 0 or not r.stdout.strip():
                raise RuntimeError(f"memory child {kind} failed: {r.stderr[-2000:]}")
            samples[kind].append(int(r.stdout.strip().splitlines()[-1]) / 1024.0)  # MiB
    out = {f"{k}_mib": summary(v) for k, v in samples.items()}
    b = out["baseline_mib"]["median"]
    out["ratio"] = out["app_mib"]["median"] / b
    out["ratio_export"] = out["app_export_mib"]["median"] / b
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--child", choices=["app", "app_export", "baseline"])
    p.add_argument("--json")
    a = p.parse_args()
    if a.child:
        sys.exit(child(a.child))
    emit(run(a.runs), a.json)


if __name__ == "__main__":
    main()
