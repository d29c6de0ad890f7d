"""Chip dialogs: a chip's full spec with the source of each figure, and the custom-chip editor.

Presets are read-only: "Copy as custom chip…" opens the editor on a copy.
The editor validates through the model's own chip parser (what it saves is
what the catalog reads back) and saves with :meth:`Catalog.save_custom`, into
the user's chip directory, so the chip is there on the next launch.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QFormLayout,
                               QHeaderView, QLabel, QLineEdit, QPushButton, QSplitter, QTableWidget,
                               QTableWidgetItem, QTextBrowser, QVBoxLayout, QWidget)

from roofgui.model.catalog import Catalog
from roofgui.model.chip_file import chip_to_toml, parse_chip_toml
from roofgui.model.chips import KINDS, LINK_NAMES, MIN_FIGURE, Chip, Figure, Link
from roofgui.model.dtypes import PEAK_KEYS
from roofgui.model.errors import ModelError
from roofgui.model.units import format_capacity, format_si, parse_quantity

USER_SOURCE = "user"
USER_CITATION = "Entered by the user in Roofline Explorer"


def figure_rows(chip: Chip) -> list[tuple[str, str, Figure | None, str]]:
    """(row key, label, figure or None, unit) for every figure a chip may have, in display order."""
    rows: list[tuple[str, str, Figure | None, str]] = []
    for k in PEAK_KEYS:
        rows.append((f"matrix.{k}", f"Matrix peak {k}", chip.matrix.get(k), "FLOP/s"))
    for k in PEAK_KEYS:
        rows.append((f"vector.{k}", f"Vector peak {k}", chip.vector.get(k), "FLOP/s"))
    rows.append(("memory.capacity", "HBM capacity", chip.hbm_capacity, "B"))
    rows.append(("memory.bandwidth", "HBM bandwidth", chip.hbm_bandwidth, "B/s"))
    for n in LINK_NAMES:
        link = chip.links.get(n)
        rows.append((f"links.{n}", f"Link {n} (one-way)", link.bandwidth if link else None, "B/s"))
    rows.append(("achievable.fraction", "Achievable fraction of peak", chip.achievable, ""))
    return rows


def _value_text(fig: Figure, unit: str) -> str:
    if unit == "B":
        return format_capacity(fig.value)
    return f"{fig.value:.0%}" if unit == "" else format_si(fig.value, unit)


class ChipSpecDialog(QDialog):
    """Every figure of a chip with its value, source, and notes."""

    copyRequested = Signal()

    def __init__(self, chip: Chip, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chip = chip
        self.setWindowTitle(f"{chip.name} — spec")
        self.resize(860, 560)
        lay = QVBoxLayout(self)
        head = QLabel()
        head.setTextFormat(Qt.TextFormat.RichText)
        head.setWordWrap(True)
        head.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        origin = ("Preset, shipped with the app (read-only)" if chip.builtin
                  else f"Custom chip: {html.escape(chip.path)}")
        head.setText(f"<b style='font-size:large'>{html.escape(chip.name)}</b> · "
                     f"{html.escape(chip.vendor)} {html.escape(chip.kind)} · id "
                     f"<code>{html.escape(chip.id)}</code><br>{html.escape(chip.summary)}<br>"
                     f"<i>{origin}</i>")
        lay.addWidget(head)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self._build_table(chip))
        split.addWidget(self._build_sources(chip))
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        lay.addWidget(split, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = QPushButton("Copy as custom chip…")
        copy.setToolTip("Create your own chip starting from these figures")
        copy.clicked.connect(self._copy)
        buttons.addButton(copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)

    def _build_table(self, chip: Chip) -> QTableWidget:
        """Every figure the chip has: its value, source and note."""
        self.table = QTableWidget(0, 4)
        self.table.setAccessibleName("Figures")
        self.table.setHorizontalHeaderLabels(["Figure", "Value", "Source", "Note"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        rows = [r for r in figure_rows(chip) if r[2] is not None]
        self.table.setRowCount(len(rows))
        for i, (key, label, fig, unit) in enumerate(rows):
            assert fig is not None
            note = fig.note
            if fig.sparsity_halved:
                note = "Spec sheet's sparse figure halved to dense. " + note
            if fig.alternatives:
                note += f" — Other published figures: {fig.alternatives}"
            if key.startswith("links."):
                desc = chip.links[key.split(".", 1)[1]].description
                if desc:
                    note = f"{desc}. {note}"
            cells = [label, _value_text(fig, unit), fig.source, note.strip()]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 2:
                    item.setToolTip(chip.sources.get(fig.source, ""))
                elif c == 3:
                    item.setToolTip(text)
                elif c == 1:
                    item.setToolTip(f"{fig.value:.6g} {unit}".strip())
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, c, item)
        self.table.resizeRowsToContents()
        return self.table

    def _build_sources(self, chip: Chip) -> QTextBrowser:
        self.sources = QTextBrowser()
        self.sources.setAccessibleName("Sources")
        self.sources.setOpenExternalLinks(True)
        items = []
        for k, v in chip.sources.items():
            text = html.escape(v)
            text = re.sub(r"(https?://[^\s<]+)", r"<a href='\1'>\1</a>", text)
            items.append(f"<p><b>{html.escape(k)}</b>: {text}</p>")
        self.sources.setHtml("<h4>Sources</h4>" + "".join(items))
        return self.sources

    def _copy(self) -> None:
        self.accept()
        self.copyRequested.emit()

    def figure_labels(self) -> list[str]:
        return [self.table.item(r, 0).text() for r in range(self.table.rowCount())]


def suggest_id(base: Chip, catalog: Catalog) -> str:
    stem = re.sub(r"-custom(-\d+)?$", "", base.id) + "-custom"
    cid, i = stem, 2
    while cid in catalog.chips:
        cid = f"{stem}-{i}"
        i += 1
    return cid


class ChipEditorDialog(QDialog):
    """Create a custom chip from a copy of another, or edit a custom chip.

    Each figure's value is typed like any quantity (``1.97e14``, ``197T``,
    ``819G``); an empty value removes an optional figure.  A changed figure is
    attributed to the user unless its source is edited too.
    """

    saved = Signal(str)  # chip id

    def __init__(self, base: Chip, catalog: Catalog, *, editing: bool = False,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.base = base
        self.catalog = catalog
        self.editing = editing
        self.setWindowTitle(f"Edit {base.name}" if editing else f"New chip from {base.name}")
        self.resize(820, 640)
        lay = QVBoxLayout(self)
        lay.addLayout(self._build_form(base, catalog, editing))
        lay.addWidget(self._build_table(base), 1)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d32f2f;")
        self.error.setAccessibleName("Problem")
        lay.addWidget(self.error)
        note = QLabel(f"Saved to your chip directory ({catalog.user_dir or 'user data'}); "
                      "it is there on the next launch.")
        note.setWordWrap(True)
        note.setEnabled(False)
        lay.addWidget(note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)

    def _build_form(self, base: Chip, catalog: Catalog, editing: bool) -> QFormLayout:
        """Id, name, vendor, kind and summary."""
        form = QFormLayout()

        def line(label: str, text: str, tip: str) -> QLineEdit:
            e = QLineEdit(text)
            e.setAccessibleName(label)
            e.setToolTip(tip)
            lab = QLabel(label)
            lab.setBuddy(e)
            form.addRow(lab, e)
            return e

        self.id_edit = line("Id", base.id if editing else suggest_id(base, catalog),
                            "Lowercase letters, digits and hyphens; also the file name.")
        self.name_edit = line("Name", base.name if editing else f"{base.name} (custom)",
                              "The name shown in the chip list and legends.")
        self.vendor_edit = line("Vendor", base.vendor, "Who makes it.")
        self.kind_combo = QComboBox()
        self.kind_combo.addItems(list(KINDS))
        self.kind_combo.setCurrentText(base.kind if base.kind in KINDS else "Accelerator")
        self.kind_combo.setAccessibleName("Kind")
        self.kind_combo.setToolTip("TPU, GPU or other accelerator.")
        kl = QLabel("Kind")
        kl.setBuddy(self.kind_combo)
        form.addRow(kl, self.kind_combo)
        self.summary_edit = line("Summary", base.summary, "One line about the chip.")
        return form

    def _build_table(self, base: Chip) -> QTableWidget:
        """Every figure a chip may have, editable: value, source and note."""
        self.table = QTableWidget(0, 4)
        self.table.setAccessibleName("Figures")
        self.table.setToolTip("Double-click a value, source or note to edit it. Leave a value empty to "
                              "drop an optional figure.")
        self.table.setHorizontalHeaderLabels(["Figure", "Value", "Source", "Note"])
        self.table.verticalHeader().setVisible(False)
        h = self.table.horizontalHeader()
        h.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        h.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        h.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.rows = figure_rows(base)
        self.table.setRowCount(len(self.rows))
        for r, (key, label, fig, unit) in enumerate(self.rows):
            name = QTableWidgetItem(label + (f" ({unit})" if unit else ""))
            name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(r, 0, name)
            value = "" if fig is None else f"{fig.value:.6g}"
            self.table.setItem(r, 1, QTableWidgetItem(value))
            self.table.setItem(r, 2, QTableWidgetItem("" if fig is None else fig.source))
            self.table.setItem(r, 3, QTableWidgetItem("" if fig is None else fig.note))
        self.table.setColumnWidth(1, 110)
        self.table.setColumnWidth(2, 90)
        return self.table

    # -- building the chip ---------------------------------------------------------
    def build(self) -> Chip:
        """The chip the fields describe, validated by the model's parser."""
        cid = self.id_edit.text().strip()
        sources = dict(self.base.sources)
        matrix: dict[str, Figure] = {}
        vector: dict[str, Figure] = {}
        links: dict[str, Link] = {}
        cap = bw = ach = None
        uses_user = False
        for r, (key, label, fig, unit) in enumerate(self.rows):
            new = self._row_figure(r, label, fig, unit)
            if new is None:
                continue
            uses_user = uses_user or new.source == USER_SOURCE
            group, name = key.split(".", 1)
            if group == "matrix":
                matrix[name] = new
            elif group == "vector":
                vector[name] = new
            elif key == "memory.capacity":
                cap = new
            elif key == "memory.bandwidth":
                bw = new
            elif group == "links":
                old = self.base.links.get(name)
                links[name] = Link(name, new, old.description if old else "")
            elif key == "achievable.fraction":
                ach = new
        if uses_user:
            sources.setdefault(USER_SOURCE, USER_CITATION)
        if cap is None:
            raise ModelError("is needed", "HBM capacity")
        if bw is None:
            raise ModelError("is needed", "HBM bandwidth")
        chip = replace(self.base, id=cid, name=self.name_edit.text().strip(),
                       vendor=self.vendor_edit.text().strip(), kind=self.kind_combo.currentText(),
                       summary=self.summary_edit.text().strip(), matrix=matrix, vector=vector,
                       hbm_capacity=cap, hbm_bandwidth=bw, links=links, achievable=ach,
                       sources=sources, builtin=False, path="", what_if=(1.0, 1.0, 1.0))
        if cid in self.catalog.chips and self.catalog.chips[cid].builtin:
            raise ModelError(f"{cid!r} is a shipped chip; choose another id", "Id")
        if cid in self.catalog.chips and not (self.editing and cid == self.base.id):
            raise ModelError(f"a chip with id {cid!r} already exists; choose another id", "Id")
        # the model's parser is the judge: what we save is what the catalog reads back
        parse_chip_toml(chip_to_toml(chip), f"{cid}.toml")
        return chip

    def _row_figure(self, r: int, label: str, fig: Figure | None, unit: str) -> Figure | None:
        """The figure row ``r`` holds (None when its value is empty); a changed value is
        attributed to the user unless its source was edited too.  Raises on a bad value."""
        text = self.table.item(r, 1).text().strip()
        src = self.table.item(r, 2).text().strip()
        note = self.table.item(r, 3).text().strip()
        self.table.item(r, 1).setBackground(QBrush())
        if not text:
            return None
        try:
            if unit == "" and text.endswith("%"):
                value = parse_quantity(text[:-1], label) / 100.0
            else:
                value = parse_quantity(text, label, max_value=1e21,
                                       min_value=MIN_FIGURE if unit else 0.0)
        except ModelError:
            self.table.item(r, 1).setBackground(QBrush(QColor("#f8d7da")))
            self.table.setCurrentCell(r, 1)
            raise
        changed = fig is None or f"{fig.value:.6g}" != text
        if not src or (changed and (fig is None or src == fig.source)):
            src = USER_SOURCE
        if changed and fig is not None and value != fig.value and src == USER_SOURCE:
            was = f"was {fig.value:.6g} ({fig.source})"
            if was not in note:
                note = f"{note}; {was}" if note else was
        if changed or fig is None:
            return Figure(value, src, False, note, "")
        return Figure(fig.value, src, fig.sparsity_halved, note, fig.alternatives)

    def save(self) -> None:
        try:
            chip = self.build()
            self.catalog.save_custom(chip)
            if self.editing and chip.id != self.base.id:
                self.catalog.delete_custom(self.base.id)
        except ModelError as e:
            self.error.setText(str(e))
            return
        except OSError as e:
            self.error.setText(f"Cannot save: {e.strerror or e}")
            return
        self.saved.emit(chip.id)
        self.accept()
