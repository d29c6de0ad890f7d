"""The hierarchical roofline in the real window: typing a tile under the selected matmul
draws one roof per on-chip level and one point per level, and says which level binds."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gui_helpers import close_quietly, flush, open_window
from roofgui.gui.levels import install_levels, parse_tile_text
from roofgui.model.errors import ModelError


@pytest.fixture
def win(qtbot, shipped):
    w = open_window(shipped, restore=False)  # the first-launch scenario: TPU v5e and H100
    flush(w)
    session = install_levels(w)
    assert install_levels(w) is session  # (once only)
    yield w, session
    close_quietly(w)


def type_tile(qtbot, w, session, text):
    edit = session.box.edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text) if text else qtbot.keyClick(edit, Qt.Key.Key_Delete)
    qtbot.keyClick(edit, Qt.Key.Key_Tab)
    flush(w)


def test_a_typed_tile_draws_level_roofs_and_points_and_says_what_binds(win, qtbot):
    w, session = win
    assert session.box.isVisible() and session.layer.roofs == {}
    type_tile(qtbot, w, session, "bm=128, bn=128, bk=64")
    assert w.doc.scenario.ops[0].tile == {"bm": 128, "bn": 128, "bk": 64}
    assert set(session.layer.roofs) == {("tpu-v5e", "vmem"), ("h100-sxm", "l2")}
    labels = {k: lab.toPlainText() for k, lab in session.layer.roof_labels.items()}
    assert labels[("h100-sxm", "l2")] == "L2 5.5 TB/s"
    marks = {(m.chip_id, m.level): m for m in session.layer.marks}
    assert set(marks) == {("tpu-v5e", "vmem"), ("tpu-v5e", "hbm"), ("h100-sxm", "l2"),
                          ("h100-sxm", "hbm")}
    x, y = session.layer.item.getData()
    assert len(x) == 4
    # the binding level's marker is the filled one; its tooltip says it binds
    hbm = marks[("tpu-v5e", "hbm")]
    assert hbm.binding and not marks[("tpu-v5e", "vmem")].binding
    tip = session.layer.tooltip_at(hbm.x, hbm.y)
    assert "HBM binds" in tip and "Google TPU v5e" in tip
    summary = session.box.summary.text()
    assert "Google TPU v5e: HBM binds" in summary and "NVIDIA H100 SXM (80 GB): HBM binds" in summary


def test_a_bad_tile_shows_one_message_and_keeps_the_last_good_one(win, qtbot):
    w, session = win
    type_tile(qtbot, w, session, "128x64")
    assert w.doc.scenario.ops[0].tile == {"bm": 128, "bn": 64}
    type_tile(qtbot, w, session, "bm=128,bn=0")
    assert session.box.message.isVisible()
    assert session.box.message.text() == "Tile: bn must be a whole number from 1 to 1048576 (got 0)"
    assert w.doc.scenario.ops[0].tile == {"bm": 128, "bn": 64}
    assert len(session.layer.marks) == 4  # still drawn from the last good tile


def test_clearing_the_tile_removes_the_levels_and_undo_brings_them_back(win, qtbot):
    w, session = win
    type_tile(qtbot, w, session, "256x256")
    assert session.layer.roofs
    type_tile(qtbot, w, session, "")
    assert w.doc.scenario.ops[0].tile is None
    assert session.layer.roofs == {} and session.layer.marks == ()
    assert not session.box.summary.isVisible()
    w.doc.undo_stack.undo()
    flush(w)
    assert w.doc.scenario.ops[0].tile == {"bm": 256, "bn": 256}
    assert len(session.layer.marks) == 4


@pytest.mark.parametrize("text, tile", [
    ("bm=128,bn=64", {"bm": 128, "bn": 64}), ("128x64x32", {"bm": 128, "bn": 64, "bk": 32}),
    ("128 × 64", {"bm": 128, "bn": 64}), ("  ", None),
])
def test_tile_text_forms(text, tile):
    assert parse_tile_text(text) == tile


@pytest.mark.parametrize("text, problem", [
    ("128", "give bm and bn"), ("bm=x,bn=2", "bm: 'x' is not a number"), ("bm=1,bn", "should look like"),
])
def test_bad_tile_text(text, problem):
    with pytest.raises(ModelError, match=problem):
        parse_tile_text(text)


def test_a_scenario_saved_with_a_tile_opens_with_its_levels_drawn(qtbot, shipped, tmp_path):
    from roofgui.model.scenario import default_scenario, save_scenario

    sc = default_scenario()
    sc.ops[0].tile = {"bm": 128, "bn": 128, "bk": 64}
    path = tmp_path / "tiled.json"
    save_scenario(sc, path)
    w = open_window(shipped, restore=False)
    try:
        assert w.controller.open_path(path, ask=False)
        flush(w)
        session = install_levels(w)
        assert session.box.edit.text() == "bm=128, bn=128, bk=64"
        assert set(session.layer.roofs) == {("tpu-v5e", "vmem"), ("h100-sxm", "l2")}
        assert len(session.layer.marks) == 4 and "binds" in session.box.summary.text()
        x0, x1, _, _ = w.roofline_plot.view_range()
        assert all(x0 <= m.x <= x1 for m in session.layer.marks)  # the view shows them
    finally:
        close_quietly(w)


def test_measured_kernels_with_l2_and_l1_bytes_appear_on_those_levels(qtbot, shipped):
    import math
    from pathlib import Path

    from gui_helpers import EXAMPLES
    from roofgui.gui.measured import install_measured

    ncu = Path(__file__).resolve().parents[1] / "fixtures" / "measured" / "ncu_metrics.csv"
    w = open_window(shipped, restore=False)
    try:
        assert w.controller.open_path(EXAMPLES / "09-mlp-on-three-gpus.json", ask=False)
        flush(w)
        measured, session = install_measured(w), install_levels(w)
        assert session.layer.measured == ()
        assert measured.import_files([ncu])
        flush(w)
        qtbot.waitUntil(lambda: len(session.layer.measured) == 2, timeout=3000)
        marks = {m.level: m for m in session.layer.measured}
        # the gemm: 137,441,116,160 FLOPs over 805,310,000 L2 bytes and 3,220,000,000 L1 bytes
        assert marks["l2"].x == math.log10(137441116160.0 / 805310000.0)
        assert marks["smem"].x == math.log10(137441116160.0 / 3220000000.0)
        assert {m.chip_id for m in marks.values()} == {"h100-sxm"}
        tip = session.layer.tooltip_at(marks["l2"].x, marks["l2"].y)
        assert "(measured) · L2 cache" in tip and "roof 5.5 TB/s" in tip
        assert set(session.layer.roofs) == {("h100-sxm", "l2")}  # the roof they sit under
        measured.clear()
        flush(w)
        qtbot.waitUntil(lambda: session.layer.measured == (), timeout=3000)
        assert session.layer.roofs == {}
    finally:
        close_quietly(w)


def test_the_box_follows_the_selected_op(win, qtbot):
    from roofgui.model.scenario import OpSpec

    w, session = win
    type_tile(qtbot, w, session, "bm=128,bn=0")  # an error on the matmul
    assert session.box.message.isVisible()

    def add(s):
        s.ops.append(OpSpec("dot", "dot", {"N": 1024}))
        s.selected = 1

    w.doc.edit("Add dot", add)
    flush(w)
    assert not session.box.isVisible()  # a dot product takes no tile
    w.form.ops.list.setCurrentRow(0)
    flush(w)
    assert session.box.isVisible() and not session.box.message.isVisible()
    assert session.box.edit.text() == ""  # the matmul's own (untiled) tile, not the bad text


def test_with_nothing_tiled_an_edit_sets_no_level_item(win, qtbot, monkeypatch):
    """Most scenarios tile nothing: their evaluations leave the level items as they are
    (empty), and a tile typed afterwards still draws its levels."""
    w, session = win
    layer = session.layer
    calls = []
    for item in (layer.item, layer.rows, layer.measured_item, layer.measured_rows):
        real = item.setData
        monkeypatch.setattr(item, "setData", lambda *a, real=real, **k: (
            calls.append(1), real(*a, **k))[1])
    edit = w.form.editor.dim_edit("B")
    for text in ("512", "1024"):
        edit.setFocus()
        edit.selectAll()
        qtbot.keyClicks(edit, text)
        flush(w)
    assert w.doc.scenario.ops[0].dims["B"] == 1024 and calls == []
    type_tile(qtbot, w, session, "bm=128, bn=128, bk=64")
    assert calls and len(layer.item.getData()[0]) == 4 and layer.item.isVisible()
    type_tile(qtbot, w, session, "")  # (cleared: the levels go)
    assert not layer.item.isVisible() and layer.roofs == {}
