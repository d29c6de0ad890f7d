"""The summary table: every op on every chip, verdict first, the whole block on top.

Rows and text come from :func:`roofgui.presentation.summary.summarise`; this module only
lays them out (the totals row bold, the selected op's row marked, each cell tinted by
its bound).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from roofgui.presentation.summary import TOTAL_LABEL, Cell, Summary

#: Cell tints per bound (light enough for black text, also read on a dark palette).
BOUND_TINTS = {"compute": "#2e7d3233", "memory": "#c6282833", "network": "#ef6c0033"}


def _argb(hex_rgba: str) -> QColor:
    c = QColor(hex_rgba[:7])
    c.setAlpha(int(hex_rgba[7:9], 16))
    return c


_TINTS = {b: QBrush(_argb(t)) for b, t in BOUND_TINTS.items()}


class SummaryTable(QTableWidget):
    """Ops down, chips across; the first row is the time of the whole block per chip.
    Clicking an op's row (or moving onto it with the arrows) says which op: ``opChosen``."""

    opChosen = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(0, 0, parent)
        self.setAccessibleName("Summary table")
        self.setToolTip("Every op on every checked chip: bound · T_lower · utilisation. The first "
                        "row sums the ops (the time of the whole block). Click an op's row to "
                        "select it. Ctrl+C copies the selected cells.")
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.setWordWrap(False)
        self.setTabKeyNavigation(False)
        self._summary = Summary()
        #: (row, col) -> (text, bold, its width in pixels) as shown
        self._shown: dict[tuple[int, int], tuple[str, bool, int]] = {}
        self.currentCellChanged.connect(self._moved)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.matches(QKeySequence.StandardKey.Copy):  # (the selected cells, as a sheet)
            QGuiApplication.clipboard().setText(self.selected_text())
            return
        super().keyPressEvent(event)

    def changeEvent(self, event) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange and self._shown:  # (measured again)
            self._shown = {}
            self.show_summary(self._summary)

    def _moved(self, row: int, _col: int, old_row: int, _old_col: int) -> None:
        ops = self._summary.op_indices
        if row != old_row and 1 <= row <= len(ops) and not self.signalsBlocked():
            self.opChosen.emit(ops[row - 1])

    def show_summary(self, s: Summary) -> None:
        """Fill the table from ``s``: only the cells whose text or weight changed are
        touched, and only their columns are measured again (an edit changes one row)."""
        self._summary = s
        cells = [s.totals] + s.cells
        texts = s.text_rows()
        selected = {r + 1 for r in s.selected_rows}
        blocked = self.blockSignals(True)  # (a shrinking table moves its current cell)
        if (self.rowCount(), self.columnCount()) != (len(texts), len(s.chips)):
            self.setRowCount(len(texts))
            self.setColumnCount(len(s.chips))
            self._shown = {}
        self.blockSignals(blocked)
        for c, chip in enumerate(s.chips):
            self._header(c, chip.replace(" (", "\n(", 1), horizontal=True)
        changed: set[int] = set()
        fm = (self.fontMetrics(), self._bold_metrics())
        for r, row in enumerate(texts):
            bold = r == 0 or r in selected
            self._header(r, ("▸ " if r in selected else "") + row[0], horizontal=False)
            for c, text in enumerate(row[1:]):
                if self._shown.get((r, c), ("", False, 0))[:2] != (text, bold):
                    self._shown[(r, c)] = (text, bold, fm[bold].horizontalAdvance(text))
                    self._set(r, c, cells[r][c], text, bold)
                    changed.add(c)
        self.setRowHidden(0, not s.has_block)  # (one op: its row says it all)
        self._fit(changed)

    def _bold_metrics(self) -> QFontMetrics:
        bold = self.font()
        bold.setBold(True)
        return QFontMetrics(bold)

    def _header(self, i: int, text: str, horizontal: bool) -> None:
        item = self.horizontalHeaderItem(i) if horizontal else self.verticalHeaderItem(i)
        if item is None:
            item = QTableWidgetItem(text)
            (self.setHorizontalHeaderItem if horizontal else self.setVerticalHeaderItem)(i, item)
        elif item.text() != text:
            item.setText(text)

    def _set(self, r: int, c: int, cell: Cell | None, text: str, bold: bool) -> None:
        item = self.item(r, c)
        if item is None:
            item = QTableWidgetItem()
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(r, c, item)
        item.setText(text)
        item.setToolTip(f"{text}\n{cell.note}".strip() if cell else "No result on this chip.")
        item.setBackground(_TINTS.get(cell.bound if cell else "", QBrush()))
        f = item.font()
        f.setBold(bold)
        item.setFont(f)

    def _fit(self, columns: set[int]) -> None:
        """Each column as wide as its widest cell or heading line (the table scrolls
        sideways past the panel's width rather than cut a verdict)."""
        hfm = self.horizontalHeader().fontMetrics()
        widest: dict[int, int] = {}
        for (_r, c), (_t, _b, w) in self._shown.items():
            if c in columns and w > widest.get(c, 0):
                widest[c] = w
        for c in columns:
            head = self.horizontalHeaderItem(c).text().split("\n")
            need = max([hfm.horizontalAdvance(h) for h in head] + [widest.get(c, 0)])
            if self.columnWidth(c) != need + 16:
                self.setColumnWidth(c, need + 16)

    # -- reading ---------------------------------------------------------------------
    def summary(self) -> Summary:
        return self._summary

    def selected_text(self) -> str:
        """The selected cells as tab-separated text, with their chips and ops named."""
        picked = {(i.row(), i.column()) for i in self.selectedIndexes()}
        rows = sorted({r for r, _ in picked})
        cols = sorted({c for _, c in picked})
        if not picked:
            return ""
        table = self._summary_rows()
        lines = ["\t".join([""] + [table[0][c + 1] for c in cols])]
        for r in rows:
            lines.append("\t".join([table[r + 1][0]] + [table[r + 1][c + 1] if (r, c) in picked
                                                         else "" for c in cols]))
        return "\n".join(lines) + "\n"

    def _summary_rows(self) -> list[list[str]]:
        head = [""] + [self.horizontalHeaderItem(c).text().replace("\n", " ")
                       for c in range(self.columnCount())]
        return [head] + self._summary.text_rows()

    def text(self) -> str:
        """The whole table as tab-separated text (for the clipboard)."""
        return "\n".join("\t".join(row) for row in self._summary_rows()) + "\n"
