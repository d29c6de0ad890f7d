"""The chips panel: a filterable, checkable list of chips, what-if multipliers and derating.

Every checked chip is overlaid on the plots in the order it was checked.
The spec dialog, the custom-chip editor and deletion live in
:mod:`roofgui.gui.chip_dialogs`; this panel opens them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QGridLayout, QGroupBox, QHBoxLayout,
                               QHeaderView, QLineEdit, QMessageBox, QToolButton, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from roofgui.model.catalog import Catalog
from roofgui.model.chips import Chip
from roofgui.model.errors import ModelError
from roofgui.model.scenario import Scenario
from roofgui.model.units import WHAT_IF_MAX, WHAT_IF_MIN
from roofgui.gui.chip_dialogs import chip_headline, chip_tooltip
from roofgui.gui.document import ALL, CHIPS, WHAT_IF, ScenarioDocument
from roofgui.gui.widgets import Binding, QuantityEdit, bind, make_label, signals_blocked

COL_NAME, COL_PEAK, COL_HBM, COL_RIDGE = range(4)
_COLOUR_ROLE = int(Qt.ItemDataRole.UserRole) + 1
_NAME_ROLE = int(Qt.ItemDataRole.UserRole) + 2  # (the name without a derate)


def _swatch(colour: str | None) -> QIcon:
    pm = QPixmap(12, 12)
    pm.fill(QColor(colour) if colour else Qt.GlobalColor.transparent)
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
        lay.addWidget(self._build_what_if())
        self.bindings = self._bind_what_ifs()
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

    def _build_what_if(self) -> QGroupBox:
        box = QGroupBox("What if")
        box.setToolTip("Scale every chip's figures to explore hardware that does not exist yet. "
                       "Multipliers other than 1 are shown in the legend.")
        g = QGridLayout(box)
        g.setContentsMargins(6, 4, 6, 4)
        g.setHorizontalSpacing(6)
        g.setVerticalSpacing(2)
        limits = {"max_value": WHAT_IF_MAX, "min_value": WHAT_IF_MIN}
        self.peak_edit = QuantityEdit("Peak ×", "Multiply every chip's peak FLOP/s.", **limits)
        self.hbm_edit = QuantityEdit("HBM ×", "Multiply every chip's HBM bandwidth.", **limits)
        self.link_edit = QuantityEdit("Link ×", "Multiply every chip's link bandwidths.", **limits)
        for i, (name, ed) in enumerate((("peak", self.peak_edit), ("hbm", self.hbm_edit),
                                        ("link", self.link_edit))):
            ed.setObjectName(f"whatif_{name}")
            ed.setMaximumWidth(70)
            g.addWidget(make_label(ed.label, ed, ed.toolTip()), 0, 2 * i)
            g.addWidget(ed, 0, 2 * i + 1)
            ed.editingFinished.connect(self.doc.seal)
            g.addWidget(ed.message, 1, 0, 1, 7)  # (one line for whichever field is bad)
        self.whatif_message = self.peak_edit.message
        self.reset_button = QToolButton()
        self.reset_button.setText("Reset")
        self.reset_button.setAccessibleName("Reset")
        self.reset_button.setToolTip("Set every what-if multiplier back to 1 and stop derating")
        self.reset_button.clicked.connect(self.reset_what_ifs)
        g.addWidget(self.reset_button, 0, 6)
        self.derate_box = QCheckBox("Derate to achievable peak")
        self.derate_box.setObjectName("derate")
        self.derate_box.setAccessibleName("Derate to achievable peak")
        self.derate_box.setToolTip("Use each chip's measured achievable fraction of peak (e.g. ~80 % "
                                   "on H100, ~95 % on TPUs) instead of the spec-sheet peak.")
        g.addWidget(self.derate_box, 2, 0, 1, 7)
        return box

    def _bind_what_ifs(self) -> list[Binding]:
        def apply(b: Binding, v: Any) -> None:
            self.doc.edit(f"Set {b.text}", lambda s: b.write(s, v), part=WHAT_IF,
                          key=b.undo_key(), origin=self)

        def multiplier(field: str):
            def write(s: Scenario, v: float) -> None:
                setattr(s.what_if, field, float(v))
            return write

        def w_derate(s: Scenario, v: bool) -> None:
            s.derate = bool(v)

        return [
            bind(self.peak_edit, lambda s: s.what_if.peak, multiplier("peak"), key="whatif.peak",
                 text="peak multiplier", apply=apply),
            bind(self.hbm_edit, lambda s: s.what_if.hbm, multiplier("hbm"), key="whatif.hbm",
                 text="HBM multiplier", apply=apply),
            bind(self.link_edit, lambda s: s.what_if.link, multiplier("link"), key="whatif.link",
                 text="link multiplier", apply=apply),
            bind(self.derate_box, lambda s: s.derate, w_derate, key="derate", text="derating",
                 apply=apply),
        ]

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
                p, bw, ridge = chip_headline(chip)
                name = chip.name if chip.builtin else f"{chip.name} (custom)"
                item = QTreeWidgetItem([name, p.replace("FLOP/s", "").strip(), bw.replace("B/s", "").strip(), ridge])
                item.setData(COL_NAME, Qt.ItemDataRole.UserRole, chip.id)
                item.setData(COL_NAME, _NAME_ROLE, name)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(COL_NAME, Qt.CheckState.Unchecked)
                tip = chip_tooltip(chip)
                for c in range(4):
                    item.setToolTip(c, tip)
                for c in (COL_PEAK, COL_HBM, COL_RIDGE):
                    item.setTextAlignment(c, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.tree.addTopLevelItem(item)
                self._items[chip.id] = item
        if current is None and self.doc.scenario.chips:
            current = self.doc.scenario.chips[0]
        if current:
            self.select_chip(current)
        self.sync(None)
        self._apply_filter(self.filter.text())

    def sync(self, origin: object = None) -> None:
        sc = self.doc.scenario
        checked = set(sc.chips)
        derates = {d.chip: f" \u00b7 {d.summary()}" for d in sc.derates}
        with signals_blocked(self.tree):
            for cid, item in self._items.items():
                name = item.data(COL_NAME, _NAME_ROLE) + derates.get(cid, "")
                if item.text(COL_NAME) != name:  # (a derate shows in the chip's name)
                    item.setText(COL_NAME, name)
                state = Qt.CheckState.Checked if cid in checked else Qt.CheckState.Unchecked
                if item.checkState(COL_NAME) != state:
                    item.setCheckState(COL_NAME, state)
                colour = self._colours.get(cid) if cid in checked else None
                if item.data(COL_NAME, _COLOUR_ROLE) != colour:
                    item.setData(COL_NAME, _COLOUR_ROLE, colour)
                    item.setIcon(COL_NAME, _swatch(colour))
        force = origin is not self
        for b in self.bindings:
            b.show(sc, force)
        self._update_buttons()

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
        def change(s: Scenario) -> None:
            s.what_if.peak = s.what_if.hbm = s.what_if.link = 1.0
            s.derate = False

        self.doc.edit("Reset what-ifs", change, part=WHAT_IF)

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
