"""Soak (issue 28): thousands of edits to a busy window, as an adversarial user makes them.

The window shows 30 ops (matmuls, dots, element-wise, custom and LLM steps) on 12 chips.  Each
edit is one user action through the window's widgets and actions, followed by the evaluation
it triggers and a repaint of the visible plot: typing (often extreme values) into the selected
op's fields, the title and the what-if; another op selected; a chip unchecked and checked again;
pastes of junk; mouse-wheel zooms far out and far in; the window resized from 60×60 to
3000×2000; bursts of undo and redo; the other tab; New, Save As, Open; exports (PNG, SVG, CSV).

It reports the resident set (RSS) after the first 1,000 edits (or half the run, if shorter) and
at the end, each taken with the window at 1200×800 (:meth:`Soak.census`), and exits non-zero
when the process crashes, when an error reaches the excepthook or a traceback is printed (a
paint error), or when the memory at the end exceeds 1.5× its level after the first 1,000 edits.
Not part of ``make test``: run ``make soak`` (``SOAK_EDITS=20000`` for the full run) or
``python tests/soak.py --edits N``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = [(60, 60), (3000, 2000), (800, 560), (200, 150), (1440, 900), (1920, 1080)]
PASTES = ["4096", "1e400", "12abc", "\x1b]0;retitled\x07\x1b[2J", "9" * 500, "-5", "0",
          "1,000", " 77 ", "\ud800", "", "65536"]
EXTREMES = ["1", "3", "1000000000", "123456789012", "7", "65536", "2", "999999"]


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Tee:
    """stderr, counting the tracebacks printed to it (pyqtgraph prints paint errors)."""

    def __init__(self, stream) -> None:
        self.stream, self.tracebacks = stream, 0

    def write(self, text: str) -> int:
        self.tracebacks += text.count("Traceback (most recent call last)")
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def busy_scenario():
    from roofgui.model.scenario import OpSpec, Scenario, ShardSpec, SweepSpec

    chips = ["tpu-v5e", "tpu-v5p", "tpu-v6e", "h100-sxm", "h200", "b200", "a100-80gb",
             "mi300x", "mi325x", "gaudi3", "l40s", "trainium2"]
    ops = []
    for i in range(30):
        k = i % 10
        if k in (0, 1, 2):
            shard = ShardSpec("D", 2 + i % 6, "ici") if k == 2 else None
            ops.append(OpSpec(f"matmul {i}", "matmul", {"B": 64 << (i % 6), "D": 4096, "F": 8192},
                              {"w": "int8"} if k == 1 else {}, shard))
        elif k == 3:
            ops.append(OpSpec(f"batched {i}", "batched-matmul", {"B": 8, "D": 2048, "F": 2048}, {}))
        elif k in (4, 5):
            ops.append(OpSpec(f"dot {i}", "dot", {"N": 1 << (16 + i % 8)}, {}))
        elif k == 6:
            ops.append(OpSpec(f"add {i}", "elementwise",
                              {"N": 1 << 24, "inputs": 2, "flops_per_element": 1}, {}))
        elif k == 7:
            ops.append(OpSpec(f"custom {i}", "custom",
                              {"flops": 1e12, "bytes": 1e9, "net_bytes": 1e8}, {}))
        else:
            model = "llama-2-7b" if k == 8 else "llama-3-70b"
            ops.append(OpSpec(f"llm {i}", "llm", {"B": 16, "p": 512, "d": 128},
                              {"w": "bf16", "x": "bf16", "kv": "bf16", "compute": "bf16"},
                              params={"model": model, "t_mem": "refined", "t_net": "note"}))
    return Scenario(title="soak", ops=ops, chips=chips,
                    sweep=SweepSpec("B", 1.0, 1e6, 100_000))


def quiet_dialogs(tmp: Path, log: list) -> None:
    """Every question answered (Discard, Yes), every warning logged, every file dialog a file."""
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    QMessageBox.exec = lambda self: QMessageBox.StandardButton.Discard
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes)
    QMessageBox.warning = staticmethod(lambda parent, title, text, *a, **k: log.append(text))
    QFileDialog.getSaveFileName = staticmethod(lambda *a, **k: (str(tmp / "soak.json"), ""))
    QFileDialog.getOpenFileName = staticmethod(lambda *a, **k: (str(tmp / "soak.json"), ""))


class Soak:
    def __init__(self, seed: int, tmp: Path) -> None:
        from PySide6.QtWidgets import QApplication

        from roofgui.gui.main_window import MainWindow
        from roofgui.model.catalog import Catalog

        self.app = QApplication.instance() or QApplication([])
        self.catalog = Catalog.load(user_dir=False)
        self.tmp, self.rng, self.warnings = tmp, random.Random(seed), []
        quiet_dialogs(tmp, self.warnings)
        self.w = MainWindow(catalog=self.catalog, restore=False)
        self.w.resize(1200, 800)
        self.w.doc.load(busy_scenario())
        self.w.show()
        self.app.processEvents()
        self.w.live.flush()

    # -- the user's actions ----------------------------------------------------------------
    def type_in(self, edit, text: str) -> None:
        edit.setFocus()
        edit.selectAll()
        edit.insert(text)
        self.w.doc.seal()

    def dim_field(self):
        from roofgui.model.ops import OP_KINDS

        sc = self.w.doc.scenario
        if not sc.ops:
            return None
        kind = OP_KINDS.get(sc.ops[sc.selected].kind)
        page = self.w.form.editor.current_page()
        names = [n for n in (kind.dim_names() if kind else ()) if page and n in page.edits]
        return self.w.form.editor.dim_edit(self.rng.choice(names)) if names else None

    def type_dimension(self) -> None:
        edit = self.dim_field()
        if edit is not None:
            self.type_in(edit, self.rng.choice(EXTREMES + [str(self.rng.randint(1, 1 << 16))]))

    def paste(self) -> None:
        from PySide6.QtGui import QGuiApplication

        edit = self.dim_field() if self.rng.random() < 0.7 else self.w.form.title.edit
        if edit is not None:
            QGuiApplication.clipboard().setText(self.rng.choice(PASTES))
            edit.setFocus()
            edit.selectAll()
            edit.paste()
            self.w.doc.seal()

    def select_op(self) -> None:
        n = self.w.form.ops.list.count()
        if n:
            self.w.form.ops.list.setCurrentRow(self.rng.randrange(n))

    def toggle_chip(self) -> None:
        cid = self.rng.choice(["mi300x", "h100-sxm", "tpu-v5e", "l4", "v100-sxm2"])
        self.w.chips_panel.set_chip_checked(cid, cid not in self.w.doc.scenario.chips)

    def wheel(self) -> None:
        from PySide6.QtCore import QCoreApplication, QPoint, QPointF, Qt
        from PySide6.QtGui import QWheelEvent

        plot = self.w.roofline_plot
        delta = self.rng.choice([-120, 120])
        for _ in range(self.rng.choice([1, 5, 17, 40, 60])):
            pos = plot.mapFromScene(plot.vb.mapViewToScene(plot.vb.viewRect().center()))
            QCoreApplication.sendEvent(plot.viewport(), QWheelEvent(
                QPointF(pos), QPointF(plot.mapToGlobal(pos)), QPoint(0, 0), QPoint(0, delta),
                Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                Qt.ScrollPhase.NoScrollPhase, False))

    def resize(self) -> None:
        self.w.resize(*self.rng.choice(SIZES))
        self.app.processEvents()

    def undo_burst(self) -> None:
        c = self.w.controller
        for _ in range(self.rng.randint(1, 25)):
            c.undo_action.trigger()
        for _ in range(self.rng.randint(0, 10)):
            c.redo_action.trigger()

    def other_tab(self) -> None:
        self.w.tabs.setCurrentIndex(1 - self.w.tabs.currentIndex())

    def files(self) -> None:
        c, step = self.w.controller, self.rng.randrange(3)
        if step == 0:
            c.save_as_action.trigger()
        elif step == 1 and (self.tmp / "soak.json").exists():
            c.open_path(self.tmp / "soak.json", ask=False)
        else:
            c.new_action.trigger()
            self.w.doc.load(busy_scenario())

    def export(self) -> None:
        from roofgui.export.options import ExportOptions
        from roofgui.export.render import render_bytes

        sc = self.w.doc.scenario
        for fmt, plot in (("png", "roofline"), ("svg", "sweep"), ("csv", "roofline")):
            render_bytes(fmt, sc, self.catalog, ExportOptions(plot, 640, 400, "slide"))

    def edit(self, i: int) -> None:
        """One action; most are typing, as a person's are."""
        k = i % 50
        if k == 49:
            self.export() if (i // 50) % 10 == 9 else self.files()
        elif k in (7, 31):
            self.resize()
        elif k in (11, 37):
            self.wheel()
        elif k in (13, 43):
            self.undo_burst()
        elif k in (17, 41):
            self.other_tab()
        elif k % 6 == 1:
            self.paste()
        elif k % 6 == 2:
            self.select_op()
        elif k % 10 == 3:
            self.toggle_chip()
        elif k % 10 == 9:
            self.type_in(self.w.form.title.edit, f"soak {i}")
        else:
            self.type_dimension()
        self.w.live.flush()
        self.w.current_plot().repaint()
        if i % 25 == 24:  # queued work (relayouts, deferred deletes), as the event loop runs it
            self.app.processEvents()

    def census(self) -> float:
        """The resident set with the window at one size (1200×800, both plots drawn at it),
        then the window as it was: the pictures of a 3000×2000 window alone take ~150 MB
        more than those of a small one, which is no growth."""
        size, tab = self.w.size(), self.w.tabs.currentIndex()
        self.w.resize(1200, 800)
        for index in (1 - tab, tab):
            self.w.tabs.setCurrentIndex(index)
            self.app.processEvents()
            self.w.live.flush()
            self.w.current_plot().repaint()
        self.app.processEvents()
        gc.collect()
        rss = rss_mb()
        self.w.resize(size)
        self.app.processEvents()
        return rss


def run(edits: int, warmup: int, seed: int, tmp: Path, tee: Tee, errors: list) -> dict:
    soak = Soak(seed, tmp)
    t0 = time.perf_counter()
    start = soak.census()
    base = None
    for i in range(edits):
        soak.edit(i)
        if i + 1 == warmup:
            base = soak.census()
            print(f"soak: RSS after the first {warmup:,} edits: {base:.1f} MB "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
        elif (i + 1) % 1000 == 0:
            print(f"soak: {i + 1:,} edits, RSS {rss_mb():.1f} MB "
                  f"({time.perf_counter() - t0:.0f} s)", flush=True)
    end = soak.census()
    soak.w.doc.load(soak.w.doc.scenario)
    soak.w.close()
    return {"edits": edits, "warmup": warmup, "seconds": round(time.perf_counter() - t0, 1),
            "rss_start_mb": round(start, 1), "rss_after_warmup_mb": round(base or start, 1),
            "rss_end_mb": round(end, 1), "tracebacks": tee.tracebacks, "errors": errors[:5],
            "warnings": len(soak.warnings), "first_warnings": soak.warnings[:3]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edits", type=int, default=int(os.environ.get("SOAK_EDITS", 3000)))
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--max-growth", type=float, default=1.5)
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, str(ROOT))
    home = Path(tempfile.mkdtemp(prefix="roofgui-soak-"))
    os.environ["ROOFGUI_HOME"] = str(home / "home")  # (never the user's settings or autosaves)
    tee, errors = Tee(sys.stderr), []
    sys.stderr = tee
    sys.excepthook = lambda t, e, tb: (errors.append(f"{t.__name__}: {e}"),
                                       sys.__excepthook__(t, e, tb))
    warmup = min(args.warmup, max(1, args.edits // 2))
    try:
        r = run(args.edits, warmup, args.seed, home, tee, errors)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(r), flush=True)
    grown = r["rss_end_mb"] > args.max_growth * r["rss_after_warmup_mb"]
    print(f"soak: {r['edits']:,} edits in {r['seconds']} s; RSS {r['rss_after_warmup_mb']} MB "
          f"after {warmup:,}, {r['rss_end_mb']} MB at the end"
          f"{' (more than %.1fx)' % args.max_growth if grown else ''}; "
          f"{r['tracebacks']} traceback(s), {len(errors)} error(s)", flush=True)
    return 1 if grown or errors or r["tracebacks"] else 0


if __name__ == "__main__":
    sys.exit(main())
