"""How the results panel shares its height: the summary (the verdicts) as tall as its rows,
and the selected op's detail beneath it with its heading, its column headings and a few
figures in view, however short the panel (a laptop's 1280×720)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QAbstractItemView, QSplitter

#: the detail's figures kept in view below its column headings
DETAIL_ROWS = 3
#: the summary's rows (the whole block, then ops) a new window's Results dock makes room for
SUMMARY_ROWS = 3


class ResizedSplitter(QSplitter):
    """A splitter that says when it has been resized (and has shared out its new size)."""

    resized = Signal()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self.resized.emit()


def summary_height(table, rows: int | None = None) -> int:
    """The summary table's height showing its column headings and its first ``rows``
    shown rows (all of them: None), with a horizontal scroll bar when its columns are
    wider than it."""
    head = table.horizontalHeader()
    shown = [r for r in range(table.rowCount()) if not table.isRowHidden(r)]
    body = sum(table.rowHeight(r) for r in (shown if rows is None else shown[:rows]))
    wide = head.length() + table.verticalHeader().width() + 2 * table.frameWidth() > table.width()
    bar = table.horizontalScrollBar().sizeHint().height() if wide else 0
    return head.sizeHint().height() + body + 2 * table.frameWidth() + bar


def detail_height(panel) -> int:
    """The selected op's detail with :data:`DETAIL_ROWS` of its figures in view: its
    heading (wrapped to the panel's width), the table's headings, the rows and the table's
    horizontal scroll bar."""
    t, h = panel.table, panel.heading
    width = max(h.width(), 100)
    heading = h.heightForWidth(width) if h.hasHeightForWidth() else h.sizeHint().height()
    rows = DETAIL_ROWS * t.verticalHeader().defaultSectionSize()
    return (max(heading, panel.copy_button.sizeHint().height()) + 4
            + t.horizontalHeader().sizeHint().height() + rows + 2 * t.frameWidth()
            + t.horizontalScrollBar().sizeHint().height())


def share_height(panel) -> None:
    """The summary as tall as its rows, but short enough to leave the detail its
    :func:`detail_height` (never shorter than its headings and first two rows); a split
    the user dragged stands."""
    sp = panel.outer
    sizes = sp.sizes()
    total = sum(sizes)
    if panel.user_split or total <= 0 or len(sizes) != 2:
        return
    want = summary_height(panel.summary)
    least = min(want, summary_height(panel.summary, 2))
    top = max(least, min(want, total - detail_height(panel)))
    top = min(top, total - 40)  # (the detail's heading at least)
    if sizes[0] != top:
        sp.setSizes([top, total - top])


def comfortable_height(panel) -> int:
    """The panel's height showing the summary's headings (two lines) and
    :data:`SUMMARY_ROWS` rows, and the detail's heading (two lines), headings (three: a
    chip's name, its memory, a phase) and :data:`DETAIL_ROWS` figures: what a new window's
    Results dock asks for, whatever the scenario on show."""
    m = panel.layout().contentsMargins()
    s, t = panel.summary, panel.table
    line = s.horizontalHeader().fontMetrics().lineSpacing()
    summary = (max(s.horizontalHeader().sizeHint().height(), 2 * line + 4)
               + SUMMARY_ROWS * s.verticalHeader().defaultSectionSize() + 2 * s.frameWidth())
    detail = (detail_height(panel) - t.horizontalHeader().sizeHint().height()
              + max(t.horizontalHeader().sizeHint().height(), 3 * line + 4))
    heading = panel.heading.fontMetrics().lineSpacing() * 2
    detail += max(0, heading - max(panel.heading.height(), panel.copy_button.sizeHint().height()))
    return summary + panel.outer.handleWidth() + detail + m.top() + m.bottom()


def show_selected(panel, force: bool = False) -> None:
    """Scroll the summary to the selected op's rows when another op is selected (or the
    rows move) or, ``force``, the panel is resized: its verdict stays in view in a short
    panel; the user's own scrolling stands while the same op stays selected."""
    table = panel.summary
    rows = [r + 1 for r in table.summary().selected_rows]  # (below the whole block's)
    if not rows or (rows == panel.shown_selected and not force):
        return
    panel.shown_selected = rows
    model = table.model()
    for r in (rows[-1], rows[0]):
        table.scrollTo(model.index(r, 0), QAbstractItemView.ScrollHint.EnsureVisible)
