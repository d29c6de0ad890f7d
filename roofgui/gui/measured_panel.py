"""The "Measured" panel: one row per imported kernel, read against its chip's roofline, the
buttons to import more or clear them, and beside the table the calibration fitted from them
(:class:`~roofgui.gui.calibration.CalibrationBox`)."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QSplitter, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from roofgui.gui.calibration import CalibrationBox

from roofgui.presentation.measured_match import TABLE_COLUMNS, PlacedKernel

#: Columns whose cells are numbers (aligned right).
NUMERIC = {2, 3, 4, 5, 6, 8, 10}
EMPTY_TEXT = ("No measured kernels. File \u25b8 Import Measurements\u2026 (Ctrl+I) or drop an "
              "Nsight Compute, rocprof-compute, XProf, PyTorch profiler or "
              "name,seconds,flops,bytes CSV file on the window.")


class MeasuredPanel(QWidget):
    """The table of measured kernels (``table``), a line about them (``summary``), the
    Import… and Clear buttons (``import_button``, ``clear_button``) and the calibration
    (``calibration``)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("measuredPanel")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)
        top = QHBoxLayout()
        self.summary = QLabel(EMPTY_TEXT)
        self.summary.setWordWrap(True)
        top.addWidget(self.summary, 1)
        self.import_button = QPushButton("Import\u2026")
        self.import_button.setToolTip("Import measured kernels from profiler files (Ctrl+I)")
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Remove every measured kernel from the plot and this table")
        self.clear_button.setEnabled(False)
        top.addWidget(self.import_button)
        top.addWidget(self.clear_button)
        lay.addLayout(top)
        self.table = QTableWidget(0, len(TABLE_COLUMNS))
        self.table.setAccessibleName("Measured kernels")
        self.table.setHorizontalHeaderLabels(list(TABLE_COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.setTabKeyNavigation(False)  # (Tab moves on; the arrows move in it)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.calibration = CalibrationBox()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.table)
        split.addWidget(self.calibration)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        self._shown: list[tuple[str, ...]] = []

    def focus_chain(self) -> list[QWidget]:
        """Import…, Clear, the table, then the calibration's (for Tab)."""
        return [self.import_button, self.clear_button, self.table, *self.calibration.focus_chain()]

    def set_kernels(self, placed: Sequence[PlacedKernel], files: int,
                    notes: Sequence[str] = ()) -> None:
        """One row per placed kernel (the table is filled again only when a cell changed);
        ``notes``: the files whose kernels are not on the chip they name."""
        rows = [pk.cells() for pk in placed]
        self.clear_button.setEnabled(bool(rows) or files > 0)
        shown_on_plot = sum(1 for pk in placed if pk.x is not None)
        if rows or files:
            n = len(rows)
            self.summary.setText(
                f"{n} kernel{'s' if n != 1 else ''} from {files} file{'s' if files != 1 else ''}"
                f"; {shown_on_plot} on the roofline (the others lack FLOPs or bytes). "
                "% of roof: achieved over the roof that limits the kernel."
                + "".join(f"\n{n}" for n in notes))
        else:
            self.summary.setText(EMPTY_TEXT)
        if rows == self._shown:
            return
        self._shown = rows
        tips = [pk.tooltip() for pk in placed]
        self.table.setRowCount(len(rows))
        for r, (cells, tip) in enumerate(zip(rows, tips)):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in NUMERIC:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setToolTip(tip)
                self.table.setItem(r, c, item)
        if rows:
            self.table.resizeColumnsToContents()
            header = self.table.horizontalHeader()
            header.resizeSection(0, min(header.sectionSize(0), 260))

    def rows(self) -> list[tuple[str, ...]]:
        """The table's cells, row by row (tests, and what a copy would give)."""
        t = self.table
        return [tuple(t.item(r, c).text() for c in range(t.columnCount()))
                for r in range(t.rowCount())]
