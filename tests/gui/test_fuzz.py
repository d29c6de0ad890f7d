"""GUI fuzz: random edits through the real widgets, junk text included, and bad files.

After every edit: nothing raised, the scenario the window holds is one the model accepts
(and survives a JSON round trip without NaN or inf), every op in it validates, the plot
shows exactly that scenario's evaluation, and every coordinate on the plot is finite.

The fuzz is seeded (``ROOFGUI_FUZZ_SEED``, ``ROOFGUI_FUZZ_EDITS`` to explore further by
hand); a failure names the seed and the last edits.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import sys
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QMessageBox

from roofgui.gui.main_window import TAB_ROOFLINE, TAB_SWEEP, MainWindow
from roofgui.gui.widgets import QuantityEdit
from roofgui.model.catalog import Catalog
from roofgui.model.errors import ModelError
from roofgui.model.ops import OP_KINDS, op_work
from roofgui.model.paths import user_chip_dir, user_log_dir
from roofgui.model.roofline import Result
from roofgui.model.scenario import Scenario, default_scenario

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the sibling test tables
import test_catalog as chip_files  # noqa: E402
import test_scenario_file as scenario_files  # noqa: E402
from gui_helpers import close_quietly, open_window  # noqa: E402

SEED = int(os.environ.get("ROOFGUI_FUZZ_SEED", "20260107"))
EDITS = int(os.environ.get("ROOFGUI_FUZZ_EDITS", "150"))

#: Typed into numeric fields.  Every one of ALWAYS_BAD must be refused by every field.
ALWAYS_BAD = ["", " ", "\t", "nan", "NaN", "-nan", "inf", "-inf", "∞", "-∞", "−1", "-1", "0",
              "-0", "0.0", "1e400", "-1e400", "1e-400", "٣", "４", "\x00", "1\x00", "💥",
              "\u202e12", "None", "0x10", "2**5000", "1e15000", "9" * 70, "__import__('os')",
              "1/0", "abc", "12q", "4 kb", "1e16", "1_000_000_000_000_000_000"]
MAYBE = ["4k", "2**20", "2^10", "1,024", "12.5", ".5", "5.", "1e6", "8Ki", "1.5M", "3", "64",
         "4096", "1e-7", "1e-6", "0.5", "1e15", "1e12", "2", "1000000", "1000001"]
ALPHABET = "0123456789" * 3 + "eE.+-*^_, kKMGTPi" + "∞−٣４💥\x00\u202e\n"


def random_text(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        return rng.choice(ALWAYS_BAD)
    if r < 0.65:
        return rng.choice(MAYBE)
    if r < 0.85:
        return str(rng.choice([1, 2, 7, 64, 300, 4096, 65536, 10**6]) * rng.choice([1, 3]))
    if r < 0.97:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8)))
    return rng.choice("0123456789ek") * rng.randint(65, 200)  # very long


MAYBE_INF = ("net_intensity", "net_critical_intensity")


# -- checks ----------------------------------------------------------------------------

def plot_coordinates_are_finite(plot) -> list[str]:
    """Every visible item's data and position on a plot, and its view: finite."""
    bad = []
    for it in plot.getPlotItem().items:
        if not it.isVisible():
            continue
        if isinstance(it, (pg.PlotDataItem, pg.PlotCurveItem, pg.ScatterPlotItem)):
            x, y = it.getData()
            gaps = None
            if isinstance(it, pg.PlotCurveItem) and it.opts.get("connect") == "finite" \
                    and x is not None and y is not None:
                # a line drawn in pieces: NaN marks its breaks, at the same places in x and y
                gaps = np.isnan(np.asarray(x, dtype=float))
                if not np.array_equal(gaps, np.isnan(np.asarray(y, dtype=float))):
                    bad.append(f"{type(it).__name__} breaks differ in x and y: {x!r} {y!r}")
            for name, a in (("x", x), ("y", y)):
                if a is None:
                    continue
                a = np.asarray(a, dtype=float)
                if not np.all(np.isfinite(a if gaps is None else a[~gaps])):
                    bad.append(f"{type(it).__name__} {name} {a!r}")
        elif isinstance(it, pg.LinearRegionItem):
            if not all(map(math.isfinite, it.getRegion())):
                bad.append(f"region {it.getRegion()}")
        elif isinstance(it, pg.TextItem):
            p = it.pos()
            if not (math.isfinite(p.x()) and math.isfinite(p.y())):
                bad.append(f"text {it.textItem.toPlainText()!r} at {p}")
    layer = getattr(plot, "label_layer", None)  # (labels drawn by one item: the sweep's)
    for lab in layer.labels if layer is not None else ():
        p = lab.pos()
        if lab.isVisible() and not (math.isfinite(p.x()) and math.isfinite(p.y())):
            bad.append(f"text {lab.toPlainText()!r} at {p}")
    rng = plot.view_range()
    if not all(map(math.isfinite, rng)):
        bad.append(f"view {rng}")
    return bad


def check_window(w: MainWindow, catalog: Catalog) -> None:
    sc = w.doc.scenario
    # the scenario survives a strict JSON round trip (no NaN/inf) and the model's validation
    text = json.dumps(sc.to_dict(), allow_nan=False)
    back = Scenario.from_dict(json.loads(text), "window")
    assert back == sc, "the scenario shown is not what would be saved"
    for op in sc.ops:  # every op validates (chip-independent): its fields hold valid values
        kind = OP_KINDS[op.kind]
        for phase in kind.phases:
            op_work(kind, op.full_dims(), op.dtypes, op.shard_obj(), op.params, phase)
    # the window's evaluation is of this very scenario (its entries hold its ops) ...
    ev = w.live.evaluation
    assert ev is not None and not w.live.timer.isActive()
    # (as equal ops: an op an edit left alone keeps the entries made from its earlier copy)
    assert all(e.op == sc.ops[e.op_index] for e in ev.entries), "the plot shows an old scenario"
    assert [c.id for c in ev.chips] == [c for c in sc.chips if c in catalog.chips]
    assert {e.op_index for e in ev.entries} | _failed_ops(ev, sc) == set(range(len(sc.ops))) \
        or not ev.chips
    for e in ev.entries:  # ... and every figure in it is finite
        for f in Result.__dataclass_fields__:
            a = np.asarray(getattr(e.analysis.result, f), dtype=float)
            assert not np.any(np.isnan(a)), (e.label, f)
            if f not in MAYBE_INF:
                assert np.all(np.isfinite(a)), (e.label, f)
    # the visible plot shows exactly this evaluation (the hidden roofline catches up when
    # its tab is shown), the roofline at the model's coordinates
    roof = w.roofline_plot
    if w.tabs.currentIndex() == TAB_SWEEP:
        bad = plot_coordinates_are_finite(w.sweep_plot)
    else:
        assert set(roof.points) == {(e.op_index, e.phase, e.chip_id) for e in ev.entries}
        for e in ev.entries:
            x, y = roof.points[(e.op_index, e.phase, e.chip_id)].getData()
            r = e.analysis.result
            assert x[0] == pytest.approx(math.log10(float(r.intensity)), abs=1e-9)
            assert y[0] == pytest.approx(math.log10(float(r.attainable_flops)), abs=1e-9)
        assert set(roof.roof_curves) == {c.id for c in ev.chips}
        bad = plot_coordinates_are_finite(roof)
    assert not bad, bad
    table = w.results.table_text().lower()
    assert "nan" not in table and "inf" not in table
    assert w.notices.messages() == list(dict.fromkeys(w.notices.messages()))


def _failed_ops(ev, sc) -> set[int]:
    """Ops with no entry because the model reported a (chip-dependent) problem for them."""
    return {i for i, op in enumerate(sc.ops) if any(m.startswith(f"{op.name} ") or
                                                    m.startswith(f"{op.name}:") for m in ev.errors)}


# -- the fuzzer ------------------------------------------------------------------------

class Fuzzer:
    def __init__(self, w: MainWindow, qtbot, rng: random.Random) -> None:
        self.w, self.qtbot, self.rng = w, qtbot, rng
        self.log: list[str] = []
        self.rejected = 0
        self.held: dict[str, set] = {}  # (the values each field held before its edits)
        self.accepted = 0

    # which widgets are there to edit right now
    def quantity_fields(self) -> list[QuantityEdit]:
        w = self.w
        fields = [e for e in w.findChildren(QuantityEdit)
                  if e.isVisibleTo(w) and e.isEnabled()]
        return fields

    def combos(self) -> list[QComboBox]:
        w = self.w
        return [c for c in w.form.findChildren(QComboBox) + w.sweep_controls.findChildren(QComboBox)
                if c.isVisibleTo(w) and c.isEnabled() and c.count() > 1]

    def binding_of(self, field: QuantityEdit):
        w = self.w
        page = w.form.editor.current_page()
        scopes = []
        if page is not None and w.doc.scenario.ops:
            op = w.doc.scenario.ops[w.doc.scenario.selected]
            scopes += [(b, op) for b in page.bindings]
            scopes += [(b, op) for b in w.form.editor.common]
        scopes += [(b, w.doc.scenario) for b in w.chips_panel.bindings + w.sweep_controls.bindings]
        for b, scope in scopes:
            if b.widget is field:
                return b, scope
        return None, None

    # edits
    def type_number(self) -> None:
        fields = self.quantity_fields()
        if not fields:
            return
        f = self.rng.choice(fields)
        text = random_text(self.rng)
        how = self.rng.choice(["paste", "paste", "keys"]) if text.isascii() and text.isprintable() \
            else "paste"
        self.log.append(f"{how} {text[:40]!r} into {f.label!r}")
        before = self.w.doc.scenario  # any edit replaces the document's scenario object
        # (a bad entry returns the field to its value before the edit: one it held before)
        self.held.setdefault(f.objectName() or f.label, set()).add(f.value())
        f.setFocus()
        f.selectAll()
        if how == "keys" and text:
            self.qtbot.keyClicks(f, text)
        elif text:
            QApplication.clipboard().setText(text)
            self.qtbot.keyClick(f, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        else:
            self.qtbot.keyClick(f, Qt.Key.Key_Backspace)
        shown = f.text()
        try:
            value = f.parse(shown)
        except ModelError:
            value = None
        if value is None or text in ALWAYS_BAD:
            # refused: an inline message naming the field; the last valid value stays
            assert f.error() and f.error().startswith(f"{f.label}: "), (shown, f.error())
            assert f.message.text() == f.error()
            if how == "paste":  # nothing changes, or the field returns to its value before the edit
                assert (self.w.doc.scenario is before
                        or f.value() in self.held[f.objectName() or f.label]), \
                    "a refused paste changed the scenario"
            self.rejected += 1
        else:
            assert f.error() is None, (shown, f.error())
            self.accepted += 1
        b, scope = self.binding_of(f)
        if b is not None and f.error() is None:  # what the field shows is what the model holds
            assert b.read(scope) == pytest.approx(f.value()), (f.label, shown)
        if self.rng.random() < 0.3:
            f.clearFocus()  # editingFinished: ends the undo merge

    def pick_combo(self) -> None:
        combos = self.combos()
        if not combos:
            return
        c = self.rng.choice(combos)
        if self.rng.random() < 0.5:
            i = self.rng.randrange(c.count())
            self.log.append(f"choose {c.itemText(i)!r} in {c.accessibleName()!r}")
            c.setCurrentIndex(i)
        else:
            key = self.rng.choice([Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_End, Qt.Key.Key_Home])
            self.log.append(f"key {key.name} in {c.accessibleName()!r}")
            c.setFocus()
            self.qtbot.keyClick(c, key)

    def toggle_chip(self) -> None:
        panel = self.w.chips_panel
        checked = list(self.w.doc.scenario.chips)
        ids = panel.visible_ids()
        cid = self.rng.choice(checked if len(checked) >= 4 else ids)  # at most 4 (cost)
        item = panel.item(cid)
        on = item.checkState(0) != Qt.CheckState.Checked
        self.log.append(f"{'check' if on else 'uncheck'} chip {cid}")
        item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def op_action(self) -> None:
        ops = self.w.form.ops
        n = len(self.w.doc.scenario.ops)
        choice = self.rng.choice(["add", "add-kind", "duplicate", "remove", "up", "down", "select",
                                  "rename"])
        if n >= 4 and choice in ("add", "add-kind", "duplicate"):
            choice = "remove"
        self.log.append(f"op {choice}")
        if choice == "add":
            ops.add_button.click()
        elif choice == "add-kind":
            ops.add_menu.aboutToShow.emit()
            acts = ops.add_menu.actions()
            a = self.rng.choice(acts)
            self.log[-1] += f" {a.text()!r}"
            a.trigger()
        elif choice == "duplicate":
            ops.duplicate_button.click()
        elif choice == "remove":
            ops.remove_button.click()
        elif choice == "up":
            ops.up_button.click()
        elif choice == "down":
            ops.down_button.click()
        elif choice == "select" and n:
            ops.list.setCurrentRow(self.rng.randrange(n))
        elif choice == "rename" and n:
            item = ops.list.item(self.rng.randrange(n))
            name = self.rng.choice(["", "   ", "x" * 300, "ünïcödé ✓", "\x00", "matmul", "a\nb"])
            self.log[-1] += f" {name[:20]!r}"
            item.setText(name)

    def undo_redo(self) -> None:
        c = self.w.controller
        a = self.rng.choice([c.undo_action, c.undo_action, c.redo_action])
        self.log.append(a.text() or "undo/redo")
        a.trigger()

    def misc(self) -> None:
        w = self.w
        choice = self.rng.choice(["derate", "reset", "tab", "fit", "zoom", "title"])
        self.log.append(choice)
        if choice == "derate":
            w.chips_panel.derate_box.click()
        elif choice == "reset":
            w.chips_panel.reset_button.click()
        elif choice == "tab":
            w.tabs.setCurrentIndex(TAB_SWEEP if w.tabs.currentIndex() == TAB_ROOFLINE else TAB_ROOFLINE)
        elif choice == "fit":
            w.fit_view()
        elif choice == "zoom":
            w.roofline_plot.getPlotItem().vb.scaleBy((self.rng.choice([0.5, 2.0]),) * 2)
        elif choice == "title":
            t = w.form.title.edit
            t.setFocus()
            t.selectAll()
            QApplication.clipboard().setText(random_text(self.rng)[:600])
            self.qtbot.keyClick(t, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)

    def step(self) -> None:
        r = self.rng.random()
        if r < 0.45:
            self.type_number()
        elif r < 0.65:
            self.pick_combo()
        elif r < 0.75:
            self.toggle_chip()
        elif r < 0.87:
            self.op_action()
        elif r < 0.95:
            self.undo_redo()
        else:
            self.misc()


@pytest.fixture
def window(qtbot, shipped):
    w = open_window(shipped, size=(900, 620))
    yield w
    close_quietly(w)


def settle(w: MainWindow, events: bool = True) -> None:
    if events:  # queued work and painting (which also runs every custom paint())
        QApplication.processEvents()
    w.live.flush()
    if w.tabs.currentIndex() == TAB_SWEEP:
        w.live.show_tab(TAB_SWEEP)


def test_random_edits_through_the_widgets_never_raise_and_always_show_a_valid_plot(window, qtbot,
                                                                                 shipped):
    rng = random.Random(SEED)
    start = default_scenario()
    start.sweep.points = 120  # a coarser sweep than the default: the fuzz is about the edits
    window.doc.load(start)
    settle(window)
    fz = Fuzzer(window, qtbot, rng)
    for i in range(EDITS):
        with qtbot.captureExceptions() as raised:
            try:
                fz.step()
                settle(window, events=i % 4 == 3)  # paint every 4th edit: paints coalesce
            except AssertionError as e:
                raise AssertionError(f"seed {SEED}, edit {i}: {e}\nlast edits: {fz.log[-8:]}") from e
        assert not raised, f"seed {SEED}, edit {i}: {raised[0][1]!r}\nlast edits: {fz.log[-8:]}"
        try:
            check_window(window, shipped)
        except (AssertionError, ModelError) as e:
            raise AssertionError(f"seed {SEED}, after edit {i}: {e}\nlast edits: {fz.log[-8:]}") from e
    # the run exercised both sides of the fields and the document's history
    assert fz.rejected > 20 and fz.accepted > 20, (fz.rejected, fz.accepted)
    assert window.doc.undo_stack.count() > 20
    # and afterwards the window works as on the first day: a new scenario, a typed edit
    window.doc.load(default_scenario())
    settle(window)
    ed = window.form.editor.dim_edit("B")
    ed.setFocus()
    ed.selectAll()
    qtbot.keyClicks(ed, "4096")
    settle(window)
    assert window.doc.scenario.ops[0].dims["B"] == 4096 and ed.error() is None
    check_window(window, shipped)


def test_every_numeric_field_refuses_every_kind_of_junk_with_its_name(window, qtbot):
    """Zero, negative, NaN, inf, 1e400, empty, whitespace, unicode junk, past float range:
    in every numeric field of every op kind, the sharding, what-ifs and sweep range."""
    w = window
    ops = w.form.ops
    ops.add_menu.aboutToShow.emit()
    for a in ops.add_menu.actions():  # one op of every kind, so every kind's fields are built
        a.trigger()
    w.tabs.setCurrentIndex(TAB_SWEEP)
    settle(w)
    seen = set()
    for row in range(len(w.doc.scenario.ops)):
        ops.list.setCurrentRow(row)
        op = w.doc.scenario.ops[w.doc.scenario.selected]
        if op.kind == "llm":  # unlock the model's own figures too
            combo = w.form.editor.current_page().findChild(QComboBox, "param_model")
            combo.setCurrentIndex(combo.findData("custom"))
        if OP_KINDS[op.kind].shard_axes:
            w.form.editor.axis_combo.setCurrentIndex(1)
        settle(w)
        fields = [f for f in w.findChildren(QuantityEdit) if f.isVisibleTo(w) and f.isEnabled()]
        for f in fields:
            key = (op.kind, f.label) if f.isVisibleTo(w.form) else f.label
            if key in seen:
                continue
            seen.add(key)
            for text in ALWAYS_BAD + ["1e-300", "5e-324", "-4k", "1e1000000"]:
                before = w.doc.scenario  # an edit would replace it (the document copies on edit)
                steps = w.doc.undo_stack.count()
                f.setFocus()
                f.selectAll()
                QApplication.clipboard().setText(text)
                qtbot.keyClick(f, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
                assert f.error(), f"{f.label!r} accepted {text!r}"
                assert f.error().startswith(f"{f.label}: ") and len(f.error()) < 200, f.error()
                assert f.message.text() == f.error()
                assert not w.live.timer.isActive() and w.doc.undo_stack.count() == steps
                assert w.doc.scenario is before, (f.label, text)
            f.selectAll()
            QApplication.clipboard().setText(f"{f.value():.17g}" if f.value() else "2")
            qtbot.keyClick(f, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
            settle(w)
            check_window(w, w.catalog)
    labels = {k if isinstance(k, str) else k[1] for k in seen}
    assert {"Peak ×", "HBM ×", "Link ×", "Chips", "From", "To"} <= labels
    for kind in OP_KINDS.values():
        for d in kind.dims:
            assert (kind.name, d.label) in seen, (kind.name, d.label)
    assert any(k[0] == "llm" and "Hidden" in k[1] for k in seen if isinstance(k, tuple))


def test_llm_model_fields_refuse_values_the_model_refuses(window, qtbot):
    """A field whose value the model would refuse (past a limit, or inconsistent with the
    other figures) is refused in the field, and the plot keeps the last valid model."""
    w = window
    w.form.ops.add_menu.aboutToShow.emit()
    [llm_action] = [a for a in w.form.ops.add_menu.actions() if "LLM" in a.text()]
    llm_action.trigger()
    page = w.form.editor.current_page()
    combo = page.findChild(QComboBox, "param_model")
    combo.setCurrentIndex(combo.findData("custom"))
    settle(w)
    fields = {f.objectName(): f for f in page.findChildren(QuantityEdit)}
    before_points = dict(w.roofline_plot.points)
    for name, text in (("param_hidden_size", "1e7"), ("param_kv_heads", "7"), ("param_layers", "0"),
                       ("param_top_k", "1e5")):
        f = fields[name]
        before = json.dumps(w.doc.scenario.to_dict())
        f.setFocus()
        f.selectAll()
        QApplication.clipboard().setText(text)
        qtbot.keyClick(f, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        settle(w)
        assert f.error() and f.error().startswith(f"{f.label}: "), (name, f.error())
        assert json.dumps(w.doc.scenario.to_dict()) == before, name
        assert set(w.roofline_plot.points) == set(before_points)
        check_window(w, w.catalog)


# -- the custom chip editor ------------------------------------------------------------------

def test_custom_chip_editor_refuses_junk_in_every_figure(window):
    from roofgui.gui.chip_dialogs import ChipEditorDialog

    base = window.catalog.get("h100-sxm")
    dlg = ChipEditorDialog(base, window.catalog, parent=window)
    try:
        target = user_chip_dir() / f"{dlg.id_edit.text()}.toml"
        for r, (key, label, fig, unit) in enumerate(dlg.rows):
            original = dlg.table.item(r, 1).text()
            for text in ["0", "-1", "nan", "inf", "1e400", "٣", "💥", "abc", "1e22", "0.5", "\x00",
                         "9" * 70]:
                if unit == "" and text == "0.5":
                    continue  # an achievable fraction of 50 % is fine
                dlg.table.item(r, 1).setText(text)
                dlg.save()
                msg = dlg.error.text()
                assert msg and (label in msg or key in msg), (key, text, msg)
                assert not target.exists() and dlg.result() == 0
            dlg.table.item(r, 1).setText(original)
        for text in ["", "   ", "UPPER", "has space", "h100-sxm", "../escape", "a/b", "a.b"]:
            dlg.error.clear()
            dlg.id_edit.setText(text)
            dlg.save()
            assert "Id" in dlg.error.text() or ": id:" in dlg.error.text(), (text, dlg.error.text())
            assert dlg.result() == 0
        assert not user_chip_dir().exists() or not list(user_chip_dir().iterdir())
    finally:
        dlg.reject()
        dlg.deleteLater()


# -- bad files -------------------------------------------------------------------------------

def test_opening_every_malformed_scenario_says_file_key_and_problem_and_keeps_working(
        window, qtbot, tmp_path, monkeypatch):
    w = window
    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    ed = w.form.editor.dim_edit("B")
    for case, content, key, problem in scenario_files.MALFORMED:
        p = tmp_path / f"{case}.json"
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
        before = w.doc.scenario.to_dict()
        shown.clear()
        assert not w.controller.open_path(p, ask=False), case
        assert len(shown) == 1, case
        msg = shown[0]
        assert str(p) in msg and (key is None or f": {key}: " in msg), (case, msg)
        assert re.search(problem, msg), (case, msg)
        assert "\n" not in msg and len(msg) < len(str(p)) + 300
        assert w.doc.scenario.to_dict() == before
        # the window keeps working
        ed.setFocus()
        ed.selectAll()
        qtbot.keyClicks(ed, str(100 + len(shown) + hash(case) % 900))
        settle(w)
        check_window(w, w.catalog)


CHIP_CASES = {c[0]: c for c in chip_files.MALFORMED}
#: one of each kind of problem the issue lists
CHIP_KINDS = ["name-int", "value-str", "no-format", "no-memory-bandwidth", "unknown-top",
              "unknown-figure-key", "hbm-bw-zero", "hbm-bw-negative", "peak-zero", "peak-nan",
              "dtype-unknown", "link-unknown", "format-newer", "truncated", "binary-junk",
              "too-large"]


@pytest.mark.parametrize("case", CHIP_KINDS)
def test_a_bad_user_chip_file_is_one_message_and_everything_else_works(case, qtbot, shipped):
    _, content, key, problem = CHIP_CASES[case]
    d = user_chip_dir()
    chip_files.write(d, "aaa-good.toml", chip_files.good("aaa-good"))
    bad = chip_files.write(d, "bad-chip.toml", content)
    w = MainWindow()
    try:
        w.show()
        w.live.flush()
        msg = w.statusBar().currentMessage()
        assert msg.startswith("1 chip file(s) could not be read: "), msg
        assert str(bad) in msg and (key is None or f": {key}: " in msg), msg
        assert re.search(problem, msg), msg
        # and it stays in view above the plot: one notice for the file
        about = [m for m in w.notices.messages() if str(bad) in m]
        assert len(about) == 1 and (key is None or f": {key}: " in about[0]), w.notices.messages()
        assert "aaa-good" in w.catalog.chips and "bad-chip" not in w.catalog.chips
        assert len(w.catalog) == len(shipped) + 1
        w.chips_panel.set_chip_checked("aaa-good", True)
        settle(w)
        assert "aaa-good" in w.roofline_plot.roof_curves
        check_window(w, w.catalog)
    finally:
        close_quietly(w)  # (deleted now: a window left to the garbage collector is torn
        # down in some later test, where Qt asks its half-gone items for size hints)


def test_the_malformed_file_tables_cover_every_case_of_the_issue():
    """Both tables (chip TOML, scenario JSON) hold each kind of bad file issue 7 lists."""
    need = {
        "wrong type": (r"-(int|str|bool|string|list|object|null|float|not-table)$",) * 2,
        "missing key": (r"^no-",) * 2,
        "unknown key": (r"^unknown-(top|.*key|dim|what-if|role)",) * 2,
        "zero or negative": (r"(zero|negative)",) * 2,
        "unknown dtype": (r"dtype-unknown|unknown-dtype",) * 2,
        "unknown link": (r"link-unknown|unknown-link",) * 2,
        "newer version": (r"format-newer", r"version-newer"),
        "truncated": (r"^truncated$",) * 2,
        "binary junk": (r"^binary-junk$",) * 2,
        "too large": (r"^too-large$",) * 2,
    }
    chip_cases = [c[0] for c in chip_files.MALFORMED]
    sc_cases = [c[0] for c in scenario_files.MALFORMED]
    for what, (chip_re, sc_re) in need.items():
        assert any(re.search(chip_re, c) for c in chip_cases), f"chip files: no {what} case"
        assert any(re.search(sc_re, c) for c in sc_cases), f"scenario files: no {what} case"


# -- unexpected errors ------------------------------------------------------------------------

@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_goes_to_the_hook_and_the_window_carries_on(window, qtbot,
                                                                          monkeypatch):
    import roofgui.gui.live as mw
    from roofgui.gui import errors_dialog

    shown = []
    monkeypatch.setattr(errors_dialog, "show_error_dialog",
                        lambda summary, details, path: shown.append((summary, details, path)))
    before_hook = sys.excepthook
    rep = errors_dialog.install_excepthook(QApplication.instance())
    try:
        real = mw.evaluate_scenario

        def broken(*a, **k):
            raise RuntimeError("model exploded during an edit")

        monkeypatch.setattr(mw, "evaluate_scenario", broken)
        ed = window.form.editor.dim_edit("B")
        ed.setFocus()
        ed.selectAll()
        qtbot.keyClicks(ed, "512")  # a real edit; the evaluation runs from the event loop
        qtbot.waitUntil(lambda: len(shown) >= 1, timeout=5000)
        summary, details, path = shown[0]
        assert summary == "RuntimeError: model exploded during an edit"
        assert "Traceback" in details and "broken" in details and "refresh" in details
        log = user_log_dir() / errors_dialog.LOG_NAME
        assert Path(path) == log and "model exploded during an edit" in log.read_text(encoding="utf-8")
        assert window.isVisible() and window.doc.scenario.ops[0].dims["B"] == 512
        # the fault goes away: the next edit is evaluated and drawn as usual
        monkeypatch.setattr(mw, "evaluate_scenario", real)
        ed.selectAll()
        qtbot.keyClicks(ed, "640")
        settle(window)
        assert window.evaluation.entries[0].op.dims["B"] == 640
        check_window(window, window.catalog)
    finally:
        rep.uninstall()
        errors_dialog._reporter = None
        sys.excepthook = before_hook
