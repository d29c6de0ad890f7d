"""The "LLM Breakdown" panel: an LLM step's parts per phase on one chip, as a table (a
phase's row holds its totals, its parts are under it) and as stacked time bars."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QSplitter,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from roofgui.plotting.breakdown_bars import BreakdownBars
from roofgui.presentation.llm_breakdown import (COLUMNS, TIME_NOTE, Breakdown, PhaseBreakdown,
                                                cells, values)

#: Where each cell keeps its number (None for text), for tests and copying.
VALUE_ROLE = Qt.ItemDataRole.UserRole
#: Columns whose cells are numbers (aligned right).
NUMERIC = {1, 2, 3, 4, 5, 7}


class BreakdownPanel(QWidget):
    """``heading`` (which op), ``chip_combo`` (which chip), ``table`` (a QTreeWidget: one
    top-level row per phase with the phase's totals, its parts as children) and ``bars``
    (:class:`~roofgui.plotting.breakdown_bars.BreakdownBars`, built with the first breakdown
    shown: a plot costs a window tens of milliseconds it need not pay while the panel is hidden)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("breakdownPanel")
        self.breakdown: Breakdown | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)
        top = QHBoxLayout()
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        top.addWidget(self.heading, 1)
        label = QLabel("Chip:")
        self.chip_combo = QComboBox()
        self.chip_combo.setAccessibleName("Chip:")
        self.chip_combo.setToolTip("The chip whose parts the table and the bars show")
        label.setBuddy(self.chip_combo)
        top.addWidget(label)
        top.addWidget(self.chip_combo)
        lay.addLayout(top)
        self.split = split = QSplitter(Qt.Orientation.Horizontal)
        self.table = QTreeWidget()
        self.table.setAccessibleName("LLM step parts")
        self.table.setColumnCount(len(COLUMNS))
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setAlternatingRowColors(True)
        self.table.setUniformRowHeights(True)
        self.table.header().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setToolTip(TIME_NOTE)
        split.addWidget(self.table)
        self.bars: BreakdownBars | None = None
        self.style = None
        lay.addWidget(split, 1)
        self.chip_combo.currentIndexChanged.connect(lambda _i: self.show_chip())

    def focus_chain(self) -> list[QWidget]:
        """The chip, then the parts' table (for Tab)."""
        return [self.chip_combo, self.table]

    def set_style(self, style) -> None:
        """The plot style the bars are drawn in (the roofline's)."""
        self.style = style
        if self.bars is not None:
            self.bars.set_style(style)

    def _add_bars(self) -> BreakdownBars:
        self.bars = BreakdownBars(style=self.style)
        self.bars.setAccessibleName("LLM step time per phase")
        self.split.addWidget(self.bars)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([640, 420])  # (the table's eight columns first)
        return self.bars

    def set_breakdown(self, b: Breakdown) -> None:
        """Show ``b`` (the chip shown stays chosen while it is broken down)."""
        if self.bars is None:
            self._add_bars()
        elif self.style is not None:
            self.bars.style = self.style
        self.breakdown = b
        keep = self.chip_combo.currentData()
        chips = b.chips()
        self.chip_combo.blockSignals(True)
        self.chip_combo.clear()
        for cid, label in chips:
            self.chip_combo.addItem(label, cid)
        at = self.chip_combo.findData(keep) if keep is not None else -1
        self.chip_combo.setCurrentIndex(at if at >= 0 else (0 if chips else -1))
        self.chip_combo.blockSignals(False)
        self.chip_combo.setEnabled(len(chips) > 1)
        self.heading.setText(b.message or f"<b>{b.op_name}</b>: each phase's parts, "
                             "per chip (FLOPs and bytes of the whole step; T_lower × count)")
        self.show_chip()

    def phases(self) -> list[PhaseBreakdown]:
        """The phases shown (the chosen chip's)."""
        cid = self.chip_combo.currentData()
        return self.breakdown.for_chip(cid) if self.breakdown is not None and cid else []

    def show_chip(self) -> None:
        phases = self.phases()
        self.table.clear()
        for ph in phases:
            top = self._item(cells(ph), values(ph), ph.title)
            f = top.font(0)
            f.setBold(True)
            for c in range(len(COLUMNS)):
                top.setFont(c, f)
            self.table.addTopLevelItem(top)
            for r in ph.rows:
                child = self._item(cells(r), values(r), r.tooltip)
                child.setIcon(0, _swatch(r.colour))
                top.addChild(child)
            top.setExpanded(True)
        for c in range(len(COLUMNS)):
            self.table.resizeColumnToContents(c)
        if self.bars is not None:
            self.bars.set_phases(phases)

    @staticmethod
    def _item(texts, nums, tip: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(list(texts))
        for c, v in enumerate(nums):
            item.setToolTip(c, tip)
            if v is not None:
                item.setData(c, VALUE_ROLE, float(v))
            if c in NUMERIC:
                item.setTextAlignment(c, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return item

    def rows(self) -> list[tuple[str, list[tuple[str, ...]]]]:
        """(phase row's cells, its parts' cells) for every phase shown (tests)."""
        t = self.table
        out = []
        for i in range(t.topLevelItemCount()):
            top = t.topLevelItem(i)
            kids = [tuple(top.child(j).text(c) for c in range(t.columnCount()))
                    for j in range(top.childCount())]
            out.append((tuple(top.text(c) for c in range(t.columnCount())), kids))
        return out


def _swatch(colour: str) -> QIcon:
    """A small square of a part's colour (the bars' and the roofline's)."""
    pm = QPixmap(10, 10)
    pm.fill(QColor(colour))
    return QIcon(pm)
