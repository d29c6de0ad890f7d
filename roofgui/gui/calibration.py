"""Calibration in the window: each chip's achievable fractions fitted from the imported
kernels, shown in the Measured panel, and applied as a named derate only when the user asks
("Apply as Derate…" and a name); "Remove Derate" and Edit ▸ Undo take it off.

The fit is against each chip as its spec states it (never an already-derated chip), and
is done again only when the kernels or the chips change.  A derate is a scenario edit (one
undo step, part :data:`~roofgui.gui.document.CHIPS`): it is saved with the scenario and
the derated chip's name says so wherever it is shown.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

from PySide6.QtCore import QObject, QSize, Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox,
                               QFormLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from roofgui.gui.document import CHIPS
from roofgui.model.derate import Derate, name_problem
from roofgui.model.evaluate import resolve_chips
from roofgui.model.measured.fit import ChipFit, fit_chips
from roofgui.model.scenario import Scenario
from roofgui.presentation.calibration_text import FIT_COLUMNS, apply_text, fit_cells, fit_detail

TITLE = "Apply as Derate"


class CalibrationBox(QGroupBox):
    """The fit of each chip (``table``), a paragraph on the selected one (``detail``) and
    the ``apply_button`` and ``remove_button``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Calibration", parent)
        self.setObjectName("calibrationBox")
        self.setToolTip("Each chip's achievable fractions of peak FLOP/s and of HBM bandwidth, "
                        "fitted from the measured kernels. Applied only when you ask.")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.table = QTableWidget(0, len(FIT_COLUMNS))
        self.table.setAccessibleName("Calibration fits")
        self.table.setHorizontalHeaderLabels(list(FIT_COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.setTabKeyNavigation(False)  # (Tab moves on; the arrows move in it)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.table, 1)
        self.table.setMinimumHeight(one_row_high(self.table))
        self.detail = Paragraph("Import measured kernels to fit each chip's achievable fractions.")
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.detail)
        row = QHBoxLayout()
        row.addStretch(1)
        self.apply_button = QPushButton("&Apply as Derate\u2026")
        self.apply_button.setToolTip("Lower the selected chip's roofs to its fitted fractions, "
                                     "as a named derate saved with the scenario")
        self.remove_button = QPushButton("&Remove Derate")
        self.remove_button.setToolTip("Take the selected chip's derate off (Edit \u25b8 Undo "
                                      "puts it back)")
        for b in (self.apply_button, self.remove_button):
            b.setEnabled(False)  # (until there is a fit to apply, a derate to remove)
            row.addWidget(b)
        lay.addLayout(row)
        self.chip_ids: list[str] = []
        self._shown: list[tuple[str, tuple[str, ...]]] = []

    def focus_chain(self) -> list[QWidget]:
        """The fits' table, Apply as Derate…, Remove Derate (for Tab)."""
        return [self.table, self.apply_button, self.remove_button]

    def set_rows(self, rows: Sequence[tuple[str, tuple[str, ...]]]) -> None:
        """``(chip id, cells)`` per row; the selected chip stays selected."""
        if list(rows) == self._shown:
            return
        self._shown = list(rows)
        keep = self.selected_chip()
        self.chip_ids = [cid for cid, _ in rows]
        self.table.setRowCount(len(rows))
        for r, (_, cells) in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        at = self.chip_ids.index(keep) if keep in self.chip_ids else (0 if rows else -1)
        if at >= 0:
            self.table.selectRow(at)
        else:
            self.table.clearSelection()
        self.table.resizeColumnsToContents()
        header = self.table.horizontalHeader()
        header.resizeSection(0, min(header.sectionSize(0), 170))  # (long names: a tooltip)

    def selected_chip(self) -> str | None:
        rows = self.table.selectionModel().selectedRows()
        r = rows[0].row() if rows else -1
        return self.chip_ids[r] if 0 <= r < len(self.chip_ids) else None

    def rows(self) -> list[tuple[str, ...]]:
        """The table's cells, row by row."""
        t = self.table
        return [tuple(t.item(r, c).text() for c in range(t.columnCount()))
                for r in range(t.rowCount())]


class Paragraph(QLabel):
    """Word-wrapped text, top-aligned, that asks for the lines it needs at its width and
    makes do with one: in a short dock its last lines are cut, never the table above it (a
    plain word-wrapped QLabel gets its whole height first, the table squeezed for it)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt API
        return False

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(super().sizeHint().width(), self.heightForWidth(max(self.width(), 1)))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(super().minimumSizeHint().width(), self.fontMetrics().lineSpacing())

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # (another width: another number of lines)


def one_row_high(table: QTableWidget) -> int:
    """The height that shows a table's header, a row and its scroll bar: the row selected
    (and the focus on it) stays readable in a short dock."""
    return (table.horizontalHeader().sizeHint().height()
            + table.verticalHeader().defaultSectionSize()
            + table.horizontalScrollBar().sizeHint().height() + 2 * table.frameWidth())


class ApplyDerateDialog(QDialog):
    """Asks which chip's fit to apply and under what name (``chip_combo``, ``name_edit``);
    OK is enabled only for a fit that can be applied and a good name."""

    def __init__(self, fits: Sequence[ChipFit], derates: Sequence[Derate], chip_id: str | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("applyDerateDialog")
        self.setWindowTitle(TITLE)
        self.fits = {f.chip.id: f for f in fits}
        self.derates = {d.chip: d for d in derates}
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.chip_combo = QComboBox()
        for f in fits:
            self.chip_combo.addItem(f.chip.name, f.chip.id)
        if chip_id in self.fits:
            self.chip_combo.setCurrentIndex(list(self.fits).index(chip_id))
        self.name_edit = QLineEdit(self._free_name())
        self.name_edit.setAccessibleName("Derate name")
        self.name_edit.selectAll()
        form.addRow("&Chip:", self.chip_combo)
        form.addRow("&Name:", self.name_edit)
        lay.addLayout(form)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c62828;")
        lay.addWidget(self.text)
        lay.addWidget(self.message)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Apply")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self.chip_combo.currentIndexChanged.connect(self._check)
        self.name_edit.textChanged.connect(self._check)
        self.setMinimumWidth(460)
        self._check()

    def _free_name(self) -> str:
        used = {d.name for d in self.derates.values()}
        return next(f"cal-{i}" for i in range(1, len(used) + 2) if f"cal-{i}" not in used)

    def chip_id(self) -> str | None:
        return self.chip_combo.currentData()

    def name(self) -> str:
        return self.name_edit.text().strip()

    def _check(self, *_args) -> None:
        fit = self.fits.get(self.chip_id())
        problem = "no fit to apply" if fit is None else fit.problem()
        if problem is None:
            p = name_problem(self.name_edit.text())
            problem = None if p is None else f"The name {p}."
        else:
            problem = f"This fit cannot be applied: {problem}."
        self.text.setText("" if fit is None else apply_text(fit, self.derates.get(fit.chip.id)))
        self.message.setText(problem or "")
        self.ok_button.setEnabled(problem is None)

    def accept(self) -> None:  # (Enter with a bad name does nothing)
        if self.ok_button.isEnabled():
            super().accept()


class Calibrator(QObject):
    """Fits the window's measured kernels and applies or removes derates (see the module)."""

    def __init__(self, window, box: CalibrationBox) -> None:
        super().__init__(window)
        self.w = window
        self.box = box
        self.fits: list[ChipFit] = []
        self.dialog: ApplyDerateDialog | None = None
        self._key: tuple | None = None
        box.apply_button.clicked.connect(self.open_apply_dialog)
        box.remove_button.clicked.connect(lambda: self.remove(self.box.selected_chip()))
        box.table.itemSelectionChanged.connect(self._show_selected)

    def update(self, placed: Sequence) -> None:
        """Fit the placed kernels (when they or the chips changed) and show the fits and
        the scenario's derates."""
        raw = {c.id: c for c in self._spec_chips()}
        pairs = [(raw[pk.point.chip], pk.kernel) for pk in placed if pk.point.chip in raw]
        key = tuple((id(c), id(k)) for c, k in pairs)
        if key != self._key:
            self._key = key
            self.fits = fit_chips(pairs)
        self._show()

    def _spec_chips(self):
        sc = self.w.doc.scenario
        return resolve_chips(dataclasses.replace(sc, derates=[]), self.w.catalog)[0]

    def _show(self) -> None:
        derates = {d.chip: d for d in self.w.doc.scenario.derates}
        fits = {f.chip.id: f for f in self.fits}
        ids = list(fits) + [c for c in derates if c not in fits]
        names = {c.id: c.name for c in self.w.catalog.chips.values()}
        self.box.set_rows([(cid, fit_cells(fits[cid].chip.name if cid in fits else
                                           names.get(cid, cid), fits.get(cid), derates.get(cid)))
                           for cid in ids])
        self._show_selected()

    def _show_selected(self) -> None:
        cid = self.box.selected_chip()
        fit = next((f for f in self.fits if f.chip.id == cid), None)
        derated = any(d.chip == cid for d in self.w.doc.scenario.derates)
        self.box.detail.setText(fit_detail(fit) if fit is not None else (
            "Applied derate; no imported kernel on this chip." if derated else
            "Import measured kernels to fit each chip's achievable fractions."))
        self.box.apply_button.setEnabled(any(f.count for f in self.fits))
        self.box.remove_button.setEnabled(derated)

    def open_apply_dialog(self) -> ApplyDerateDialog | None:
        """Ask for the chip and the name (the dialog is window-modal, not blocking)."""
        fits = [f for f in self.fits if f.count]
        if not fits:
            return None
        dlg = ApplyDerateDialog(fits, self.w.doc.scenario.derates, self.box.selected_chip(),
                                self.w)
        # (the fit the dialog showed, even if an import changed the fits meanwhile)
        dlg.accepted.connect(lambda: self.apply(dlg.chip_id(), dlg.name(),
                                                dlg.fits.get(dlg.chip_id())))
        dlg.finished.connect(dlg.deleteLater)
        self.dialog = dlg
        dlg.open()
        return dlg

    def apply(self, chip_id: str | None, name: str, fit: ChipFit | None = None) -> bool:
        """Apply a chip's fit (``fit``, else the chip's current one) as the derate ``name``
        (one undo step); False if it cannot."""
        fit = fit or next((f for f in self.fits if f.chip.id == chip_id), None)
        if fit is None or fit.problem() or name_problem(name):
            return False
        derate = fit.derate(name.strip())

        def change(s: Scenario) -> None:
            s.derates = [d for d in s.derates if d.chip != derate.chip] + [derate]

        done = self.w.doc.edit(f"Apply derate '{derate.name}' to {fit.chip.name}", change,
                               part=CHIPS)
        if done:
            self.w.statusBar().showMessage(
                f"{fit.chip.name}: {derate.summary()} applied (Edit \u25b8 Undo takes it off)",
                15000)
        return done

    def remove(self, chip_id: str | None) -> bool:
        """Take a chip's derate off (one undo step)."""
        d = next((d for d in self.w.doc.scenario.derates if d.chip == chip_id), None)
        if d is None:
            return False

        def change(s: Scenario) -> None:
            s.derates = [x for x in s.derates if x.chip != chip_id]

        self.w.doc.edit(f"Remove derate '{d.name}'", change, part=CHIPS)
        self.w.statusBar().showMessage(f"Derate '{d.name}' removed from {chip_id}", 10000)
        return True
