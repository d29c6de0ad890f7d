"""The Results dock at any window size: the summary's verdicts (every row for a step of
an LLM, the whole block and the selected op otherwise) and at least three of the selected
op's figures in view without scrolling; at 1280×720 the LLM examples showed only the
detail table's column headings."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from gui_helpers import EXAMPLES, close_quietly, flush, open_window

LLM = ["10-llm-llama-2-7b-one-gpu.json", "10-llm-llama-3-70b-eight-gpus.json"]
OTHERS = ["09-mlp-on-three-gpus.json", "11-transformer-block-16-chips.json"]
SIZES = [(1280, 720), (1600, 1000), (2560, 1440)]


def rows_in_view(table) -> list[int]:
    """The rows shown whole in the table's viewport."""
    h = table.viewport().height()
    return [r for r in range(table.rowCount()) if not table.isRowHidden(r)
            and table.rowViewportPosition(r) >= 0
            and table.rowViewportPosition(r) + table.rowHeight(r) <= h]


def shown_rows(table) -> list[int]:
    return [r for r in range(table.rowCount()) if not table.isRowHidden(r)]


@pytest.fixture
def results_at(qtbot, shipped):
    """Open ``name`` in a new window of ``size``; the window's results panel."""
    opened = []

    def make(name, size):
        w = open_window(shipped, restore=False, size=size)
        opened.append(w)
        w.controller.open_path(EXAMPLES / name, ask=False)
        for _ in range(3):
            flush(w)
        return w.results

    yield make
    for w in opened:
        close_quietly(w)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", LLM)
def test_an_llm_steps_verdicts_and_figures_are_in_view(results_at, name, size):
    panel = results_at(name, size)
    summary = panel.summary
    assert shown_rows(summary) and rows_in_view(summary) == shown_rows(summary)
    assert len(rows_in_view(panel.table)) >= 3


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", OTHERS)
def test_the_block_and_the_selected_op_are_in_view(results_at, name, size):
    panel = results_at(name, size)
    summary = panel.summary
    assert {0, 1} <= set(rows_in_view(summary))  # (the whole block; the selected op)
    assert len(rows_in_view(panel.table)) >= 3


def test_a_split_the_user_drags_stands(qtbot, results_at):
    panel = results_at(LLM[0], (1600, 1000))
    handle = panel.outer.handle(1)
    top = panel.outer.sizes()[0]
    mid = handle.rect().center()
    qtbot.mousePress(handle, Qt.MouseButton.LeftButton, pos=mid)
    qtbot.mouseMove(handle, mid + QPoint(0, 40))
    qtbot.mouseRelease(handle, Qt.MouseButton.LeftButton, pos=mid + QPoint(0, 40))
    dragged = panel.outer.sizes()[0]
    assert dragged > top + 20
    panel.window().resize(1600, 980)
    panel.window().controller.open_path(EXAMPLES / LLM[1], ask=False)
    flush(panel.window())
    assert panel.outer.sizes()[0] == dragged


@pytest.mark.parametrize("size", SIZES)
def test_the_selected_ops_verdict_stays_in_view(qtbot, results_at, size):
    """In a short panel the summary scrolls to the op selected in the op list."""
    panel = results_at(OTHERS[1], size)
    ops = panel.window().form.ops.list
    for row in (ops.count() - 1, 7, 2):
        ops.setCurrentRow(row)
        flush(panel.window())
        marked = [r for r in shown_rows(panel.summary)
                  if panel.summary.verticalHeaderItem(r).text().startswith("▸")]
        assert marked and set(marked) <= set(rows_in_view(panel.summary)), row
        assert len(rows_in_view(panel.table)) >= 3
