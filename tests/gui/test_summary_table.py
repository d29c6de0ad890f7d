"""The results' summary table: every op on every chip, verdict first, the whole block on top."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from gui_helpers import flush, three_ops
from roofgui.model.units import format_time


def summary_texts(w):
    t = w.results.summary
    return {(t.verticalHeaderItem(r).text(), c): t.item(r, c).text()
            for r in range(t.rowCount()) for c in range(t.columnCount())}


def test_every_op_on_every_chip_with_the_block_total_first(window, qtbot):
    window.doc.load(three_ops())
    flush(window)
    t = window.results.summary
    assert t.isVisible()
    assert [t.horizontalHeaderItem(c).text().split("\n")[0] for c in range(3)] == [
        "Google TPU v5e", "NVIDIA H100 SXM", "AMD Instinct MI300X"]
    heads = [t.verticalHeaderItem(r).text() for r in range(t.rowCount())]
    assert heads == ["Whole block (Σ ops)", "▸ bf16", "int8 w", "sharded"]
    # the verdict first: bound · T_lower · utilisation; the total sums the ops' T_lower
    for c in range(3):
        cells = [t.item(r, c).text() for r in range(1, 4)]
        assert all(x.split(" · ")[0] in ("compute", "memory", "network") for x in cells)
        recs = []
        for i in range(3):
            window.form.ops.list.setCurrentRow(i)
            flush(window)
            recs.append(window.results.records()[c])
        total = sum(r["t_lower"] for r in recs)
        assert t.item(0, c).text().split(" · ")[1] == format_time(total)
        assert t.item(0, c).font().bold()
    # the summary sits above the per-op detail
    y_summary = t.mapTo(window, QPoint(0, 0)).y()
    assert y_summary < window.results.table.mapTo(window, QPoint(0, 0)).y()


def test_selecting_and_editing_an_op_updates_its_row_and_the_totals(window, qtbot):
    window.doc.load(three_ops())
    flush(window)
    window.form.ops.list.setCurrentRow(1)
    flush(window)
    t = window.results.summary
    assert t.verticalHeaderItem(2).text() == "▸ int8 w"
    assert t.verticalHeaderItem(1).text() == "bf16"
    before = summary_texts(window)
    edit = window.form.editor.dim_edit("B")
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "4096")
    flush(window)
    after = summary_texts(window)
    assert after[("▸ int8 w", 0)] != before[("▸ int8 w", 0)]
    assert after[("bf16", 0)] == before[("bf16", 0)]
    assert after[("Whole block (Σ ops)", 0)] != before[("Whole block (Σ ops)", 0)]
    # Tab reaches the summary table on its way to the detail table
    t.setFocus()
    qtbot.keyClick(t, Qt.Key.Key_Tab)
    assert window.focusWidget() is window.results.table


def test_clicking_an_ops_row_or_arrowing_onto_it_selects_that_op(window, qtbot):
    window.doc.load(three_ops())
    flush(window)
    t = window.results.summary
    rect = t.visualItemRect(t.item(3, 1))  # "sharded" on the second chip
    qtbot.mouseClick(t.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    flush(window)
    assert window.doc.scenario.selected == 2
    assert window.form.ops.list.currentRow() == 2
    assert t.verticalHeaderItem(3).text() == "▸ sharded"
    assert window.results.heading.text().startswith("sharded — ")
    qtbot.keyClick(t, Qt.Key.Key_Up)
    flush(window)
    assert window.doc.scenario.selected == 1
    # the totals row is no op: clicking it keeps the selection
    rect = t.visualItemRect(t.item(0, 0))
    qtbot.mouseClick(t.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    flush(window)
    assert t.currentRow() == 0 and window.doc.scenario.selected == 1


def test_the_table_follows_removing_an_op_and_undo(window, qtbot):
    from roofgui.model.evaluate import evaluate_scenario
    from roofgui.presentation.summary import summarise

    def expected():
        ev = evaluate_scenario(window.doc.scenario, window.catalog)
        return summarise(ev.entries, ev.chips, window.doc.scenario.selected).text_rows()

    def shown():
        t = window.results.summary
        return [[t.verticalHeaderItem(r).text().removeprefix("▸ ")]
                + [t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]

    window.doc.load(three_ops())
    flush(window)
    window.form.ops.list.setCurrentRow(1)
    qtbot.mouseClick(window.form.ops.remove_button, Qt.MouseButton.LeftButton)
    flush(window)
    assert [r[0] for r in shown()] == ["Whole block (Σ ops)", "bf16", "sharded"]
    assert shown() == expected()
    window.doc.undo_stack.undo()
    flush(window)
    assert len(shown()) == 4 and shown() == expected()


def test_ctrl_c_and_copy_table_give_the_summary_as_a_sheet(window, qtbot):
    from PySide6.QtGui import QGuiApplication

    window.doc.load(three_ops())
    flush(window)
    t = window.results.summary
    t.setFocus()
    t.setCurrentCell(0, 0)
    qtbot.keyClick(t, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(t, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    lines = QGuiApplication.clipboard().text().splitlines()
    assert len(lines) == 5
    assert lines[0].split("\t")[1:] == ["Google TPU v5e", "NVIDIA H100 SXM (80 GB)", "AMD Instinct MI300X"]
    assert lines[1].split("\t")[0] == "Whole block (Σ ops)"
    assert lines[1].split("\t")[1] == t.item(0, 0).text()
    assert lines[4].split("\t")[0] == "sharded"
    qtbot.mouseClick(window.results.copy_table_button, Qt.MouseButton.LeftButton)
    text = QGuiApplication.clipboard().text()
    assert text.startswith("\t".join(lines[0].split("\t")) + "\n")
    assert "\nFLOPs\t" in text  # (then the selected op's figures)


def test_one_op_shows_no_block_total(window):
    from roofgui.model.scenario import load_scenario

    from gui_helpers import EXAMPLES
    window.doc.load(load_scenario(EXAMPLES / "10-llm-llama-3-70b-eight-gpus.json"))
    flush(window)
    t = window.results.summary
    assert [t.verticalHeaderItem(r).text() for r in range(t.rowCount())][1:] == [
        "▸ Llama-3 70B serving · prefill", "▸ Llama-3 70B serving · decode"]
    assert t.isRowHidden(0) and not t.isRowHidden(1)
    window.doc.load(three_ops())
    flush(window)
    assert not t.isRowHidden(0)
