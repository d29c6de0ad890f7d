"""The chips panel: a filterable, checkable list of chips, what-if multipliers and derating.

Every checked chip is overlaid on the plots in the order it was checked.
The spec dialog, the custom-chip editor and deletion live in
:mod:`roofgui.gui.chip_dialogs`; this panel opens them.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLineEdit, QMessageBox,
                               QToolButton, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from roofgui.model.catalog import Catalog
from roofgui.model.chips import Chip
from roofgui.model.derate import Derate
from roofgui.model.errors import ModelError
from roofgui.model.scenario import Scenario
from roofgui.presentation.chip_rows import chip_row
from roofgui.gui.document import ALL, CHIPS, WHAT_IF, ScenarioDocument
from roofgui.gui.widgets import signals_blocked
from roofgui.gui.what_if_box import WhatIfBox

COL_NAME, COL_PEAK, COL_HBM, COL_RIDGE = range(4)
_COLOUR_ROLE = int(Qt.ItemDataRole.UserRole) + 1
_NAME_ROLE = int(Qt.ItemDataRole.UserRole) + 2  # (the name without a derate)
_UNSET = object()


def _swatch(colour: str | None) -> QIcon:
    """A checked chip's colour; none (not a blank that indents the name) for an unchecked one."""
    if not colour:
        return QIcon()
    pm = QPixmap(12, 12)
    pm.fill(QColor(colour))
    return QIcon(pm)


class ChipsPanel(QWidget):
    """Chips to overlay, with a filter box; what-if multipliers; derating."""

    specRequested = Signal(str)

    def __init__(self, doc: ScenarioDocument, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.catalog = catalog
        self._colours: dict[str, str] = {}
        self._items: dict[str, QTreeWidgetItem] = {}
        self._derates_shown: dict[str, Derate | None] = {}  # (by chip: the figures shown)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(4)
        self.filter = QLineEdit()
        self.filter.setObjectName("chip_filter")
        self.filter.setPlaceholderText("Filter chips (name, vendor, id)")
        self.filter.setClearButtonEnabled(True)
        self.filter.setAccessibleName("Filter chips")
        self.filter.setToolTip("Show only the chips whose name, vendor or id contains this text.")
        self.filter.textChanged.connect(self._apply_filter)
        down = QShortcut(QKeySequence(Qt.Key.Key_Down), self.filter, context=Qt.ShortcutContext.WidgetShortcut)
        down.activated.connect(lambda: self.tree.setFocus())  # Down from the filter enters the list
        lay.addWidget(self.filter)
        lay.addWidget(self._build_tree(), 1)
        lay.addLayout(self._build_buttons())
        self.what_if = WhatIfBox(doc)
        lay.addWidget(self.what_if)
        w = self.what_if
        self.peak_edit, self.hbm_edit, self.link_edit = w.peak_edit, w.hbm_edit, w.link_edit
        self.derate_box, self.reset_button, self.whatif_message = (w.derate_box, w.reset_button,
                                                                   w.message)
        self.bindings = w.bindings
        self.reload()
        doc.changed.connect(self._on_changed)
        doc.replaced.connect(self._on_replaced)
        # a document opened before the list is shown is scrolled to once the list has its size
        self._scroll_pending = False
        self.tree.verticalScrollBar().rangeChanged.connect(self._on_scroll_range)

    def _build_tree(self) -> QTreeWidget:
        self.tree = QTreeWidget()
        self.tree.setObjectName("chip_list")
        self.tree.setAccessibleName("Chips")
        self.tree.setToolTip("Check a chip to overlay its roofs. Space checks; Enter or "
                             "double-click shows its full spec with sources.")
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["Chip", "FLOP/s", "HBM B/s", "Ridge"])
        self.tree.headerItem().setToolTip(COL_PEAK, "bf16 matrix peak, FLOP/s")
        self.tree.headerItem().setToolTip(COL_HBM, "HBM bandwidth, bytes/s")
        self.tree.headerItem().setToolTip(COL_RIDGE, "Critical intensity: bf16 peak ÷ HBM bandwidth "
                                          "(FLOP/byte)")
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        h = self.tree.header()
        h.setStretchLastSection(False)
        h.setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        for c in (COL_PEAK, COL_HBM, COL_RIDGE):
            h.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemChanged.connect(self._on_item_changed)
        self.tree.itemActivated.connect(lambda item, _c: self.show_spec())
        self.tree.currentItemChanged.connect(lambda *_: self._update_buttons())
        return self.tree

    def _build_buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(2)

        def button(text: str, tip: str, slot) -> QToolButton:
            b = QToolButton()
            b.setText(text)
            b.setAccessibleName(text)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            row.addWidget(b)
            return b

        self.spec_button = button("Spec…", "Show the selected chip's full spec with the source of "
                                  "each figure", self.show_spec)
        self.new_button = button("New…", "Create a custom chip by copying the selected chip and "
                                 "editing it", self.new_custom)
        self.edit_button = button("Edit…", "Edit the selected custom chip (presets are read-only)",
                                  self.edit_custom)
        self.delete_button = button("Delete", "Delete the selected custom chip", self.delete_custom)
        row.addStretch(1)
        return row

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(340, 300)

    # -- building --------------------------------------------------------------------
    def reload(self) -> None:
        """(Re)build the list from the catalog: after a custom chip is added, edited or deleted."""
        current = self.current_chip_id()
        with signals_blocked(self.tree):
            self.tree.clear()
            self._items.clear()
            for chip in self.catalog:
                name = chip.name if chip.builtin else f"{chip.name} (custom)"
                item = QTreeWidgetItem([name])
                item.setData(COL_NAME, Qt.ItemDataRole.UserRole, chip.id)
                item.setData(COL_NAME, _NAME_ROLE, name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(COL_NAME, Qt.CheckState.Unchecked)
                for c in (COL_PEAK, COL_HBM, COL_RIDGE):
                    item.setTextAlignment(c, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.tree.addTopLevelItem(item)
                self._items[chip.id] = item
            self._derates_shown.clear()
        if current is None and self.doc.scenario.chips:
            current = self.doc.scenario.chips[0]
        if current:
            self.select_chip(current)
        self.sync(None)
        self._apply_filter(self.filter.text())

    def sync(self, origin: object = None) -> None:
        sc = self.doc.scenario
        checked = set(sc.chips)
        derates = {d.chip: d for d in sc.derates}
        with signals_blocked(self.tree):
            for cid, item in self._items.items():
                derate = derates.get(cid)
                self._show_figures(cid, item, derate)
                name = item.data(COL_NAME, _NAME_ROLE) + (f" \u00b7 {derate.summary()}"
                                                          if derate else "")
                if item.text(COL_NAME) != name:  # (a derate shows in the chip's name)
                    item.setText(COL_NAME, name)
                state = Qt.CheckState.Checked if cid in checked else Qt.CheckState.Unchecked
                if item.checkState(COL_NAME) != state:
                    item.setCheckState(COL_NAME, state)
                colour = self._colours.get(cid) if cid in checked else None
                if item.data(COL_NAME, _COLOUR_ROLE) != colour:
                    item.setData(COL_NAME, _COLOUR_ROLE, colour)
                    item.setIcon(COL_NAME, _swatch(colour))
        self.what_if.show_scenario(force=origin is not self and origin is not self.what_if)
        self._update_buttons()

    def _show_figures(self, cid: str, item: QTreeWidgetItem, derate: Derate | None) -> None:
        """The chip's figures, derated (marked, in italics) when its roofs are."""
        chip = self.catalog.chips.get(cid)
        if chip is None or self._derates_shown.get(cid, _UNSET) == derate:
            return
        self._derates_shown[cid] = derate
        row = chip_row(chip, derate)
        for c, text in zip((COL_PEAK, COL_HBM, COL_RIDGE), row.columns()):
            item.setText(c, text)
            font = item.font(c)
            font.setItalic(row.derated)
            item.setFont(c, font)
        for c in range(4):
            item.setToolTip(c, row.tooltip)

    def _on_changed(self, part: str, origin: object) -> None:
        """The checked chips, the what-ifs or derating changed."""
        if part in (CHIPS, WHAT_IF, ALL):
            self.sync(origin)

    def _on_replaced(self) -> None:
        """A new document: select its first chip and scroll the list to its checked chips."""
        chips = [c for c in self.doc.scenario.chips if c in self._items]
        if chips:
            self.select_chip(chips[0])
        self.scroll_to_checked()
        # (a list not shown yet has no scroll range: it scrolls again once it has one)
        self._scroll_pending = not self.tree.isVisible()

    def _on_scroll_range(self, _lo: int, _hi: int) -> None:
        if self._scroll_pending and self.tree.isVisible():
            self._scroll_pending = False
            self.scroll_to_checked()

    def scroll_to_checked(self) -> None:
        """Scroll the list so that its topmost checked chip is the first row shown.

        (The list keeps the catalog's order; as many of the checked chips below it as fit
        are then in view too.  Placed at the top rather than merely "visible", the row is
        whole whatever the list's height, and stays in view when the list is laid out or
        resized later, as it is when a file is opened before the window is shown.)
        """
        checked = set(self.doc.scenario.chips)
        for cid, item in self._items.items():  # in list order
            if cid in checked and not item.isHidden():
                self.tree.scrollToItem(item, QAbstractItemView.ScrollHint.PositionAtTop)
                return

    def set_colours(self, colours: dict[str, str]) -> None:
        """The plot's colour of each checked chip, shown as a swatch beside its name."""
        if colours != self._colours:
            self._colours = dict(colours)
            self.sync(self)

    # -- reading -------------------------------------------------------------------
    def current_chip_id(self) -> str | None:
        item = self.tree.currentItem()
        return None if item is None else item.data(COL_NAME, Qt.ItemDataRole.UserRole)

    def current_chip(self) -> Chip | None:
        cid = self.current_chip_id()
        return self.catalog.chips.get(cid) if cid else None

    def item(self, chip_id: str) -> QTreeWidgetItem:
        return self._items[chip_id]

    def visible_ids(self) -> list[str]:
        return [cid for cid, item in self._items.items() if not item.isHidden()]

    def select_chip(self, chip_id: str) -> None:
        item = self._items.get(chip_id)
        if item is not None:
            self.tree.setCurrentItem(item)

    # -- user actions --------------------------------------------------------------
    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if column != COL_NAME:
            return
        cid = item.data(COL_NAME, Qt.ItemDataRole.UserRole)
        on = item.checkState(COL_NAME) == Qt.CheckState.Checked
        self.set_chip_checked(cid, on)

    def set_chip_checked(self, chip_id: str, on: bool) -> None:
        name = self.catalog.chips[chip_id].name if chip_id in self.catalog.chips else chip_id

        def change(s: Scenario) -> None:
            if on and chip_id not in s.chips:
                s.chips.append(chip_id)
            elif not on and chip_id in s.chips:
                s.chips.remove(chip_id)

        self.doc.edit(f"{'Show' if on else 'Hide'} {name}", change, part=CHIPS, origin=self)

    def reset_what_ifs(self) -> None:
        self.what_if.reset()

    def _apply_filter(self, text: str) -> None:
        words = text.lower().split()
        for cid, item in self._items.items():
            chip = self.catalog.chips.get(cid)
            hay = f"{cid} {chip.name} {chip.vendor} {chip.kind}".lower() if chip else cid
            item.setHidden(not all(w in hay for w in words))
        current = self.tree.currentItem()
        if current is None or current.isHidden():  # Space acts on a row the user can see
            shown = [i for i in self._items.values() if not i.isHidden()]
            self.tree.setCurrentItem(shown[0] if shown else None)

    def _update_buttons(self) -> None:
        chip = self.current_chip()
        self.spec_button.setEnabled(chip is not None)
        self.new_button.setEnabled(chip is not None)
        custom = chip is not None and not chip.builtin
        self.edit_button.setEnabled(custom)
        self.delete_button.setEnabled(custom)

    def show_spec(self) -> None:
        chip = self.current_chip()
        if chip is None:
            return
        from roofgui.gui.chip_dialogs import ChipSpecDialog
        dlg = ChipSpecDialog(chip, self)
        dlg.copyRequested.connect(lambda: self.new_custom(chip))
        dlg.open()

    def new_custom(self, base: Chip | None = None) -> None:
        base = base or self.current_chip()
        if base is None:
            return
        from roofgui.gui.chip_dialogs import ChipEditorDialog
        dlg = ChipEditorDialog(base, self.catalog, editing=False, parent=self)
        dlg.saved.connect(self.after_save)
        dlg.open()

    def edit_custom(self) -> None:
        chip = self.current_chip()
        if chip is None or chip.builtin:
            return
        from roofgui.gui.chip_dialogs import ChipEditorDialog
        dlg = ChipEditorDialog(chip, self.catalog, editing=True, parent=self)
        dlg.saved.connect(self.after_save)
        dlg.open()

    def after_save(self, chip_id: str) -> None:
        """A custom chip was saved: list it, select it and check it."""
        self.reload()
        self.select_chip(chip_id)
        if chip_id not in self.doc.scenario.chips:
            self.set_chip_checked(chip_id, True)
        else:  # same id, new figures: re-evaluate
            self.doc.notify(CHIPS)

    def delete_custom(self) -> None:
        chip = self.current_chip()
        if chip is None or chip.builtin:
            return
        answer = QMessageBox.question(
            self, "Delete custom chip",
            f"Delete “{chip.name}”? Its file {chip.path} is removed; this cannot be undone.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No)
        if answer != QMessageBox.StandardButton.Yes:
            return
        try:
            self.catalog.delete_custom(chip.id)
        except (ModelError, OSError) as e:
            QMessageBox.warning(self, "Cannot delete chip", str(e))
            return
        if chip.id in self.doc.scenario.chips:
            self.set_chip_checked(chip.id, False)
        self.reload()
