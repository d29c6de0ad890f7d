"""Paint soak: 1,500 renders of a busy roofline and sweep, with an edit between each.

PySide6-Essentials 6.12.0 on CPython 3.11 drops a reference to ``None`` on every
void virtual call and aborts the process (``none_dealloc``) after a few thousand
paints.  Each render paints a few dozen items (each a void virtual call), so 1,500
renders make tens of thousands of them; the edit soak (``test_soak.py``) repaints the
whole window 3,000 times besides.  The soak runs in a child process so an abort is
reported as a failure with its exit status, not as a vanished test run.

Run directly (``python tests/gui/test_paint_soak.py 3000``) to soak by hand.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RENDERS = 1500


def soak(n: int) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    import numpy as np
    from PySide6 import QtCore, QtGui, QtWidgets

    from roofgui.plotting.plots import RooflinePlot
    from roofgui.plotting.sweep_plot import SweepPlot
    from roofgui.presentation.style import SCREEN_DARK, SCREEN_LIGHT
    from roofgui.model.catalog import Catalog
    from roofgui.model.scenario import OpSpec, Scenario, ShardSpec
    from roofgui.model.evaluate import evaluate_scenario, sweep_scenario

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    cat = Catalog.load(False)
    sc = Scenario(chips=["tpu-v5e", "h100-sxm", "mi300x"], ops=[
        OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192}, {}),
        OpSpec("int8 weights", "matmul", {"B": 64, "D": 4096, "F": 4096}, {"w": "int8"}),
        OpSpec("sharded", "matmul", {"B": 1024, "D": 8192, "F": 8192}, {},
               ShardSpec("D", 4, "ici")),
        OpSpec("dot", "dot", {"N": 1 << 20}, {}),
    ])
    sc.sweep.points = 100
    # The edits: the batch walks across the ridge, the shard count changes and a
    # chip comes and goes.  Evaluated up front, so the loop spends its time in
    # the widgets' update and paint paths, which is what this test soaks.
    roof_states, sweep_states = [], []
    for j in range(12):
        s = sc.copy()
        s.ops[0].dims["B"] = 16 * 2 ** j
        s.ops[2].shard.n = 2 + j % 5
        if j == 11:
            s.chips = s.chips[:2]
        roof_states.append((s, evaluate_scenario(s, cat)))
        if j % 4 == 0:
            sweep_states.append((s, sweep_scenario(s, cat)[0]))
    roof = RooflinePlot()
    roof.resize(240, 160)
    sweep = SweepPlot()
    sweep.resize(240, 160)
    img = QtGui.QImage(240, 160, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    blank = 0
    for i in range(n):
        if i % 500 == 250:
            roof.set_style(SCREEN_DARK if roof.style is SCREEN_LIGHT else SCREEN_LIGHT)
        if i % 100 == 50:
            roof.vb.scaleBy((0.9, 0.9))
        if i % 10 == 9:
            widget = sweep
            if i % 30 == 9:
                sweep.update_from(*sweep_states[(i // 30) % len(sweep_states)])
        else:
            widget = roof
            if i % 3 == 0:
                roof.update_from(*roof_states[(i // 3) % len(roof_states)])
        img.fill(QtGui.QColor(0, 0, 0, 0))
        p = QtGui.QPainter(img)
        widget.render(p)
        p.end()
        if i % 3 == 0 or i == n - 1:
            a = np.frombuffer(img.constBits(), np.uint8, img.sizeInBytes()).reshape(-1, 4)
            if a[::7].std(axis=0).max() < 5:
                blank += 1
        if i % 25 == 0:
            # grab() paints through the widget's own paint event, as the screen does
            if widget.grab().isNull():
                blank += 1
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents)
    print(f"renders={n} blank={blank}", flush=True)
    return 0 if blank == 0 else 1


#: Run in a child process by tests/conftest.py's ``child_result``.
CHILD_ARGV = [sys.executable, __file__, str(RENDERS)]
CHILD_TIMEOUT = 600


def test_thousands_of_paints_keep_the_process_alive(child_result):
    proc = child_result
    assert proc.returncode == 0, (
        f"soak died or drew blank images (exit {proc.returncode}):\n"
        f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    assert f"renders={RENDERS} blank=0" in proc.stdout


if __name__ == "__main__":
    sys.exit(soak(int(sys.argv[1]) if len(sys.argv) > 1 else RENDERS))
