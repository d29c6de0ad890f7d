"""Soak: three thousand edits through the widgets of the busy window, each followed by a repaint.

The window shows 3 chips and 3 ops (one sharded over a link).  Each cycle is one user edit
through a real widget (typing in a dimension, the title, the what-if, the shard count; a
dtype; another op selected; a chip unchecked and checked again), the evaluation it triggers,
and a repaint of the plot.  About half the edits move points on the plot; the others (title,
selection) leave it as drawn, which the window notices and does not rebuild.  Afterwards the process must be alive and its memory flat: the resident set after a
warm-up and at the end within :data:`MAX_GROWTH_MB`, and the same number of plot items, Qt
children and undo steps' worth of objects (nothing re-created per edit).

It runs in a child process, so a binding that aborts (PySide6-Essentials 6.12.0 on CPython
3.11 dropping a reference to ``None`` until ``none_dealloc`` aborts) is a failure with its
exit status rather than a vanished test run.  Run it by hand with
``python tests/gui/test_soak.py [CYCLES]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CYCLES = 3_000
WARMUP = 1_000
MAX_GROWTH_MB = 30.0


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def soak(n: int, warmup: int) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    import gc

    import pyqtgraph as pg
    from PySide6.QtCore import QObject, QPropertyAnimation, Qt
    from PySide6.QtWidgets import QApplication

    from roofgui.gui.main_window import MainWindow
    from roofgui.model.catalog import Catalog
    from roofgui.model.scenario import OpSpec, Scenario, ShardSpec

    app = QApplication.instance() or QApplication([])
    w = MainWindow(catalog=Catalog.load(user_dir=False), restore=False)
    w.resize(800, 560)
    sc = Scenario(title="soak", chips=["tpu-v5e", "h100-sxm", "mi300x"], ops=[
        OpSpec("matmul", "matmul", {"B": 256, "D": 8192, "F": 8192}, {}),
        OpSpec("sharded", "matmul", {"B": 1024, "D": 8192, "F": 8192}, {}, ShardSpec("D", 4, "pcie")),
        OpSpec("dot", "dot", {"N": 1 << 20}, {}),
    ])
    w.doc.load(sc)
    w.show()
    app.processEvents()
    w.live.flush()
    form, panel = w.form, w.chips_panel
    plot = w.roofline_plot

    def type_in(edit, text: str) -> None:  # select all and type over it, as a paste does
        edit.setFocus()
        edit.selectAll()
        edit.insert(text)

    def select(row: int) -> None:
        form.ops.list.setCurrentRow(row)

    def cycle(i: int) -> None:
        # One edit per cycle, as a person makes them: mostly typing in the selected op's fields
        # (each moves points on the plot), switching between ops, retitling the scenario; every
        # 20th a what-if, a dtype and a chip unchecked (and checked again 20 edits later).
        k = i % 20
        if k in (0, 8, 18):
            type_in(form.editor.dim_edit("B"), str(16 + (i * 37) % 8000))
        elif k in (1, 5, 9, 15, 19):
            type_in(form.title.edit, f"soak {i}")
        elif k == 2:
            type_in(panel.peak_edit, "1.5" if (i // 20) % 2 else "1")
        elif k == 3:
            select(1)  # the sharded op
        elif k == 4:
            type_in(form.editor.dim_edit("B"), str(64 + (i * 53) % 4000))
        elif k == 6:
            type_in(form.editor.chips_edit, str(2 + i % 7))
        elif k in (7, 14):
            select(0)
        elif k == 10:
            type_in(form.editor.dim_edit("D"), str(1024 * (1 + i % 16)))
        elif k == 11:
            select(2)  # the dot product
        elif k == 12:
            item = panel.item("mi300x")
            on = item.checkState(0) == Qt.CheckState.Checked
            item.setCheckState(0, Qt.CheckState.Unchecked if on else Qt.CheckState.Checked)
        elif k == 13:
            type_in(form.editor.dim_edit("N"), str((1 << 16) * (1 + i % 32)))
        elif k == 16:
            type_in(form.editor.dim_edit("F"), str(4096 + 512 * (i % 9)))
        else:  # k == 17
            combo = form.editor.dtype_combo("w")
            combo.setCurrentIndex(combo.findData("int8" if combo.currentData() == "bf16" else "bf16"))
        w.live.flush()
        plot.repaint()
        if i % 100 == 99:  # let queued work run (relayout, deferred deletes) as the event loop does
            app.processEvents()

    def census() -> dict:
        app.processEvents()  # deferred deletes done, at the same point of the edit cycle
        gc.collect()
        items = sum(1 for o in gc.get_objects() if isinstance(o, pg.GraphicsObject))
        return {"rss_mb": rss_mb(), "pg_items": items, "scene_items": len(plot.scene().items()),
                # (less the animations Qt's dock layout makes, one per dock the first time it
                # animates it: when that happens depends on paint timing, and they are kept)
                "children": sum(1 for o in w.findChildren(QObject)
                                if not isinstance(o, QPropertyAnimation)),
                "undo": w.doc.undo_stack.count()}

    t0 = time.perf_counter()
    c0 = time.process_time()
    for i in range(warmup):
        cycle(i)
    before = census()
    for i in range(warmup, n):
        cycle(i)
    after = census()
    ev = w.live.evaluation
    result = {"cycles": n, "seconds": round(time.perf_counter() - t0, 1),
              "cpu_seconds": round(time.process_time() - c0, 1),
              "before": before, "after": after, "evaluations": w.live.count,
              "points": len(plot.points), "entries": len(ev.entries) if ev else 0,
              "notices": w.notices.messages()}
    w.doc.load(w.doc.scenario)
    w.close()
    return result


#: Run in a child process by tests/conftest.py's ``child_result``.
CHILD_ARGV = [sys.executable, __file__, str(CYCLES)]
CHILD_TIMEOUT = 900


def test_three_thousand_edits_and_repaints_leave_the_process_alive_and_its_memory_flat(child_result):
    proc = child_result
    assert proc.returncode == 0, (f"the soak died (exit {proc.returncode}):\n"
                                  f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    r = json.loads(lines[-1])
    print(f"soak: {r['cycles']} cycles in {r['seconds']} s ({r['cpu_seconds']} s CPU); "
          f"RSS {r['before']['rss_mb']:.1f} → {r['after']['rss_mb']:.1f} MB")
    # every edit was drawn, but the retitlings (5 cycles in 20): nothing plotted shows the title
    assert r["cycles"] == CYCLES and r["evaluations"] >= CYCLES * 15 // 20
    assert r["entries"] == r["points"] > 0 and r["notices"] == []
    b, a = r["before"], r["after"]
    assert a["rss_mb"] - b["rss_mb"] < MAX_GROWTH_MB, (b, a)
    # nothing is re-created per edit: the same plot items, scene items and Qt objects
    assert a["pg_items"] == b["pg_items"], (b, a)
    assert a["scene_items"] == b["scene_items"], (b, a)
    assert a["children"] == b["children"], (b, a)
    # the history is bounded, so a window left open for days does not grow either
    from roofgui.gui.document import MAX_UNDO

    assert b["undo"] <= a["undo"] <= MAX_UNDO, (b, a)
    # a clean close: no autosave left behind (in the child's own home, not the user's)
    assert not [p for p in r["home"] if p.startswith("autosave/") and p.endswith(".json")], r["home"]


if __name__ == "__main__":
    import shutil
    import tempfile

    # Run by hand, the child would use the real user data directory: give the window a home
    # of its own, so its autosave, settings and session never touch the user's.
    home = tempfile.mkdtemp(prefix="roofgui-soak-")
    os.environ["ROOFGUI_HOME"] = home
    try:
        cycles = int(sys.argv[1]) if len(sys.argv) > 1 else CYCLES
        out = soak(cycles, min(WARMUP, cycles // 2 // 40 * 40))  # whole 40-cycle rounds
        out["home"] = sorted(str(p.relative_to(home)) for p in Path(home).rglob("*"))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(out), flush=True)
