"""Measured kernels in the real window: imported from the File menu, by the drop handlers
and directly; read on the roofline (stars, hover) and in the "Measured" table."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gui_helpers import EXAMPLES, dark_palette, flush, window_on
from roofgui.gui.measured import (accepts_drop, drop_measured,
                                  import_files, install_measured)
from roofgui.model.measured import parse_measurements
from roofgui.model.scenario import OpSpec, Scenario
from roofgui.model.units import format_si, format_time
from roofgui.model.measured.roof import place

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "measured"
NCU = FIXTURES / "ncu_metrics.csv"
PLAIN = FIXTURES / "plain.csv"
KINETO = FIXTURES / "kineto_flops.json"
BUSY = EXAMPLES / "09-mlp-on-three-gpus.json"


@pytest.fixture
def win(qtbot, shipped):
    """The window on the busy example (H100, H200, B200 checked), with measurements."""
    with window_on(shipped, BUSY) as w:
        session = install_measured(w)
        assert install_measured(w) is session  # (once only: one menu item, one dock)
        yield w, session


def expected(w, paths, chip_id="h100-sxm"):
    """place() of every kernel of the files on the chip, in file order."""
    chip = next(c for c in w.evaluation.chips if c.id == chip_id)
    return [place(k, chip) for p in paths for k in parse_measurements(p).kernels]


def scatter(session):
    x, y = session.layer.item.getData()
    return [float(v) for v in x], [float(v) for v in y]


def test_imported_kernels_are_stars_on_their_chips_roofline(win):
    w, session = win
    assert session.import_files([NCU, PLAIN])
    flush(w)
    recs = expected(w, [NCU, PLAIN])
    plotted = [r for r in recs if r.intensity is not None and r.achieved_flops is not None]
    assert len(recs) == 5 and len(plotted) == 4  # (layernorm: no FLOPs, not plotted)
    xs, ys = scatter(session)
    assert xs == [math.log10(r.intensity) for r in plotted]
    assert ys == [math.log10(r.achieved_flops) for r in plotted]
    assert session.layer.item.isVisible() and session.dock.isVisible()
    # outlined in H100's colour, a hollow star (the analytic ops are filled circles etc.)
    colour = w.chip_colours()["h100-sxm"]
    for spot in session.layer.item.points():
        assert spot.symbol() == "star"
        assert spot.pen().color().name() == colour.lower()
    # every measured point is in view (the view widened for the elementwise kernels)
    x0, x1, y0, y1 = w.roofline_plot.view_range()
    assert all(x0 <= x <= x1 for x in xs) and all(y0 <= y <= y1 for y in ys)
    assert "measured kernel" in [lab.text for _, lab in w.roofline_plot.legend.items]
    msg = w.statusBar().currentMessage()
    assert "Imported 5 kernels from 2 files onto h100-sxm" in msg
    assert "ncu_metrics.csv: the file names no chip: placed on the first checked chip, h100-sxm" in msg


def test_hover_reads_the_measurement_against_its_roof(win):
    w, session = win
    session.import_files([NCU])
    flush(w)
    gemm = expected(w, [NCU])[0]
    tip = session.layer.tooltip_at(math.log10(gemm.intensity), math.log10(gemm.achieved_flops))
    assert tip.startswith(f"<b>{gemm.name}</b> (measured, ncu) on <b>NVIDIA H100 SXM (80 GB)</b>")
    assert f"count: 3 · time: {format_time(gemm.seconds)}" in tip
    assert f"achieved: {format_si(gemm.achieved_flops, 'FLOP/s')} · " \
           f"{format_si(gemm.achieved_bandwidth, 'B/s')}" in tip
    assert "intensity: 2\u2009675 FLOP/byte" in tip
    assert f"<b>{gemm.roof_fraction:.1%}</b> of bf16 matrix peak " \
           f"{format_si(gemm.peak, 'FLOP/s')} (compute-bound)" in tip
    mul = expected(w, [NCU])[1]
    tip = session.layer.tooltip_at(math.log10(mul.intensity), math.log10(mul.achieved_flops))
    assert f"<b>{mul.roof_fraction:.1%}</b> of HBM {format_si(mul.hbm_bandwidth, 'B/s')} " \
           "(memory-bound)" in tip
    assert session.layer.tooltip_at(0.0, 20.0) is None
    # the mouse over the star shows it; away from it, nothing
    plot = w.roofline_plot
    scene = plot.vb.mapViewToScene(QPointF(math.log10(mul.intensity),
                                           math.log10(mul.achieved_flops)))
    plot.scene().sigMouseMoved.emit(scene)
    assert session.layer.hover_tip == tip
    plot.scene().sigMouseMoved.emit(plot.vb.mapViewToScene(QPointF(0.0, 20.0)))
    assert session.layer.hover_tip is None


def test_the_table_gives_each_kernel_with_its_percent_of_roof(win):
    w, session = win
    session.import_files([NCU, PLAIN])
    flush(w)
    recs = expected(w, [NCU, PLAIN])
    rows = session.panel.rows()
    assert [r[0] for r in rows] == [r.name for r in recs]
    assert [r[1] for r in rows] == ["h100-sxm"] * 5
    assert [r[2] for r in rows] == [str(r.count) for r in recs]
    assert [r[7] for r in rows] == [r.bound for r in recs]
    assert [r[8] for r in rows] == [f"{r.roof_fraction:.1%}" for r in recs]
    assert rows[2][4] == format_si(recs[2].achieved_flops, "FLOP/s")
    assert rows[3][4] == "\u2014"  # layernorm: FLOPs unknown
    header = session.panel.table.horizontalHeaderItem(10).text()
    assert header == "Measured / T_lower"


def test_a_kernel_matched_to_an_op_gives_measured_over_t_lower(win, tmp_path):
    w, session = win
    sc = Scenario(chips=["h100-sxm"], ops=[
        OpSpec("gemm 4096", "matmul", {"B": 4096, "D": 4096, "F": 8192}),
        OpSpec("mm", "matmul", {"B": 1024, "D": 1024, "F": 1024})])
    w.doc.load(sc)
    flush(w)
    session.import_files([PLAIN, KINETO])
    flush(w)
    t = {e.op_index: float(e.analysis.result.t_lower) for e in w.evaluation.entries}
    rows = {r[0]: r for r in session.panel.rows()}
    assert rows["gemm_4096"][9] == "gemm 4096 (name)"
    assert rows["gemm_4096"][10] == f"{0.001 / t[0]:.2f}\u00d7"
    sgemm = parse_measurements(KINETO).kernels[0]  # aten::mm [[1024,1024],[1024,1024]]
    assert rows[sgemm.name][9] == "mm (shape)"
    assert rows[sgemm.name][10] == f"{sgemm.seconds / t[1]:.2f}\u00d7"
    gemm = next(p for p in session.placed if p.kernel.name == "gemm_4096")
    tip = session.layer.tooltip_at(gemm.x, gemm.y)
    assert f"matches op <b>gemm 4096</b> by name: measured / T_lower = " \
           f"<b>{0.001 / t[0]:.2f}\u00d7</b>" in tip
    # an edit of the op: the next evaluation re-reads the kernel against the new bound
    sc2 = Scenario(chips=["h100-sxm"], ops=[
        OpSpec("gemm 4096", "matmul", {"B": 8192, "D": 4096, "F": 8192})])
    w.doc.load(sc2)
    flush(w)
    t2 = float(w.evaluation.entries[0].analysis.result.t_lower)
    assert session.panel.rows()[0][10] == f"{0.001 / t2:.2f}\u00d7"


def test_kernels_follow_the_checked_chips(win):
    w, session = win
    session.import_files([KINETO])  # measured on an A100-SXM4-80GB, which is not checked
    flush(w)
    assert "NVIDIA A100-SXM4-80GB is a100-80gb, which is not checked: placed on h100-sxm" \
        in w.statusBar().currentMessage()
    w.doc.load(Scenario(chips=["b200", "a100-80gb"], ops=[OpSpec("x", "matmul", {})]))
    flush(w)
    assert {r[1] for r in session.panel.rows()} == {"a100-80gb"}
    w.doc.load(Scenario(chips=["b200"], ops=[OpSpec("x", "matmul", {})]))
    flush(w)
    assert {r[1] for r in session.panel.rows()} == {"b200"}


def test_a_malformed_file_changes_nothing_and_says_where(win, tmp_path, monkeypatch):
    w, session = win
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: said.append(a[2]))
    monkeypatch.setattr(QMessageBox, "critical", lambda *a: said.append(a[2]))
    session.import_files([NCU])
    flush(w)
    before_points, before_rows = scatter(session), session.panel.rows()
    bad = tmp_path / "bad.csv"
    bad.write_text("name,seconds,flops,bytes\nok,0.001,1e9,1e6\nk,abc,1,2\n")
    assert not import_files(w, [PLAIN, bad])  # the good file first: not kept either
    flush(w)
    assert len(said) == 1
    assert f"{bad}:3:2:" in said[0]
    assert scatter(session) == before_points and session.panel.rows() == before_rows
    assert len(session.sets) == 1


def test_clear_empties_the_plot_and_the_table(win, qtbot):
    w, session = win
    session.import_files([NCU, PLAIN])
    flush(w)
    assert session.panel.clear_button.isEnabled()
    qtbot.mouseClick(session.panel.clear_button, Qt.MouseButton.LeftButton)
    flush(w)
    assert scatter(session) == ([], [])
    assert not session.layer.item.isVisible()
    assert session.panel.table.rowCount() == 0
    assert "measured kernel" not in [lab.text for _, lab in w.roofline_plot.legend.items]
    w.doc.load(w.doc.scenario)  # another evaluation brings nothing back
    flush(w)
    assert session.panel.table.rowCount() == 0


def test_file_menu_import_with_ctrl_i(win, monkeypatch):
    w, session = win
    file_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&File")
    act = next(a for a in file_menu.actions() if a.text() == "Import &Measurements\u2026")
    assert act.shortcut().toString() == "Ctrl+I"
    monkeypatch.setattr(QFileDialog, "getOpenFileNames",
                        lambda *a, **k: ([str(NCU), str(PLAIN)], ""))
    act.trigger()
    flush(w)
    assert session.panel.table.rowCount() == 5
    view_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&View")
    assert "Measured" in [a.text().replace("&", "") for a in view_menu.actions()]


def _mime(*paths):
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return md


def test_dropped_measurement_files_are_imported(win):
    w, session = win
    md = _mime(NCU, PLAIN)
    enter = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, md,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    w.dragEnterEvent(enter)  # (the window hands measurement drags to drag_enter_measured)
    assert enter.isAccepted()
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, md, Qt.MouseButton.NoButton,
                    Qt.KeyboardModifier.NoModifier)
    w.dropEvent(ev)
    assert ev.isAccepted()
    flush(w)
    assert session.panel.table.rowCount() == 5 and len(scatter(session)[0]) == 4


def test_a_scenario_json_still_opens_as_a_scenario(win, tmp_path):
    w, session = win
    scenario = tmp_path / "dropped.json"
    scenario.write_text(Scenario(chips=["b200"], ops=[OpSpec("x", "matmul", {})]).to_json())
    assert accepts_drop([KINETO]) and accepts_drop([NCU, KINETO])
    assert not accepts_drop([scenario]) and not accepts_drop([NCU, scenario])
    assert not accepts_drop([])
    md = _mime(scenario)  # (kept: the event does not own it)
    ev = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, md, Qt.MouseButton.NoButton,
                    Qt.KeyboardModifier.NoModifier)
    assert not drop_measured(w, ev)
    w.dropEvent(ev)
    assert w.doc.path == scenario and session.panel.table.rowCount() == 0


def test_the_stars_follow_a_dark_palette(win):
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QApplication

    from roofgui.plotting.plot_items import face_colour

    w, session = win
    session.import_files([NCU])
    flush(w)
    light = session.layer.item.points()[0].brush().color().name()
    with dark_palette():
        s = w.roofline_plot.style
        assert s.is_dark
        face = session.layer.item.points()[0].brush().color().name()
        assert face == QColor(face_colour(s)).name() and face != light


def test_a_file_imported_again_replaces_its_kernels(win):
    w, session = win
    session.import_files([NCU, PLAIN])
    session.import_files([PLAIN])
    flush(w)
    assert session.panel.table.rowCount() == 5 and len(scatter(session)[0]) == 4
    assert "ncu_metrics.csv: the file names no chip" in session.panel.summary.text()
