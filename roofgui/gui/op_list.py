"""The list of ops: :class:`OpListPanel`, where the scenario's ops are added, duplicated,
renamed, removed and reordered.

Each op is marked with a dot, green when it is compute-bound on every chip, red when on
none, yellow when it depends on the chip (:meth:`OpListPanel.set_bounds`).  A new op is
named after its kind (a copy after the op it copies), with a number when that name is taken
(:func:`unique_name`).  The panel writes the scenario through
:meth:`ScenarioDocument.edit` and is updated from it with the list's signals blocked.
"""

from __future__ import annotations

import copy

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QListWidget, QListWidgetItem, QMenu,
                               QSizePolicy, QToolButton, QVBoxLayout, QWidget)

from roofgui.model.ops import OP_KINDS
from roofgui.model.scenario import OpSpec, Scenario
from roofgui.gui.document import ALL, OPS, SELECTED, ScenarioDocument
from roofgui.gui.op_editor import kind_items
from roofgui.gui.widgets import signals_blocked


def unique_name(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    i = 2
    while f"{base} {i}" in taken:
        i += 1
    return f"{base} {i}"


_BOUND_ROLE = int(Qt.ItemDataRole.UserRole) + 2


def _dot(colour: str | None) -> QIcon:
    pm = QPixmap(10, 10)
    pm.fill(Qt.GlobalColor.transparent)
    if colour:
        p = QPainter(pm)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(colour))
        p.drawEllipse(1, 1, 8, 8)
        p.end()
    return QIcon(pm)


# -- the op list ----------------------------------------------------------------

class OpListPanel(QWidget):
    """The scenario's ops: add, duplicate, rename, remove and reorder."""

    def __init__(self, doc: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.list = QListWidget()
        self.list.setAccessibleName("Operations")
        self.list.setToolTip("The ops of the scenario. Each is drawn on the roofline for every checked "
                             "chip. Double-click or F2 renames; Delete removes; Alt+Up/Down reorders.")
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.list.setMinimumHeight(60)
        self.list.setMaximumHeight(140)
        lay.addWidget(self.list)
        lay.addLayout(self._build_buttons())
        self.list.currentRowChanged.connect(self._on_row_changed)
        self.list.itemChanged.connect(self._on_item_changed)
        doc.changed.connect(self._on_changed)
        self.sync(None)

    def _build_buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(2)
        self.add_button = QToolButton()
        self.add_button.setText("Add")
        self.add_button.setAccessibleName("Add")
        self.add_button.setToolTip("Add an op (Ctrl+Shift+A); the arrow picks its type")
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.add_menu = QMenu(self.add_button)
        self.add_menu.aboutToShow.connect(self._fill_add_menu)
        self.add_button.setMenu(self.add_menu)
        self.add_button.clicked.connect(lambda: self.add_op())
        row.addWidget(self.add_button)

        def button(text: str, tip: str, slot, shortcut: str | None = None) -> QToolButton:
            b = QToolButton()
            b.setText(text)
            b.setAccessibleName(text)
            b.setToolTip(f"{tip} ({shortcut})" if shortcut else tip)
            b.clicked.connect(slot)
            row.addWidget(b)
            if shortcut:
                a = QAction(text, self)
                a.setShortcut(QKeySequence(shortcut))
                a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                a.triggered.connect(slot)
                self.addAction(a)
            return b

        self.duplicate_button = button("Duplicate", "Add a copy of the selected op", self.duplicate_op,
                                       "Ctrl+D")
        self.rename_button = button("Rename", "Rename the selected op", self.rename_op, "F2")
        self.remove_button = button("Remove", "Remove the selected op", self.remove_op, "Del")
        self.up_button = button("▲", "Move the selected op up", lambda: self.move_op(-1), "Alt+Up")
        self.up_button.setAccessibleName("Move up")
        self.down_button = button("▼", "Move the selected op down", lambda: self.move_op(1), "Alt+Down")
        self.down_button.setAccessibleName("Move down")
        row.addStretch(1)
        return row

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(320, 120)

    BOUND_DOTS = {"compute": "#3BA55C", "mixed": "#F2C12E", "limited": "#E0453A"}

    def set_bounds(self, bounds: dict[int, list[tuple[str, str]]]) -> None:
        """Mark each op at a glance: green when compute-bound on every chip, red when on none,
        yellow when it depends on the chip; the tooltip names the bound per chip."""
        sc = self.doc.scenario
        with signals_blocked(self.list):  # (an icon or a tooltip is no rename: _on_item_changed)
            for i in range(min(self.list.count(), len(sc.ops))):
                item, op, per_chip = self.list.item(i), sc.ops[i], bounds.get(i, [])
                kinds = {b for _, b in per_chip}
                state = ("" if not kinds else "compute" if kinds == {"compute"} else
                         "limited" if "compute" not in kinds else "mixed")
                if item.data(_BOUND_ROLE) != state:
                    item.setData(_BOUND_ROLE, state)
                    item.setIcon(_dot(self.BOUND_DOTS.get(state)))
                kind = OP_KINDS[op.kind].label if op.kind in OP_KINDS else op.kind
                tip = "\n".join([f"{op.name}: {kind}"] + [f"{who}: {b}-bound" for who, b in per_chip])
                if item.toolTip() != tip:
                    item.setToolTip(tip)

    # -- sync from the scenario ---------------------------------------------------
    def _on_changed(self, part: str, origin: object) -> None:
        """The ops (their names) or which is selected changed."""
        if part in (OPS, SELECTED, ALL):
            self.sync(origin)

    def sync(self, origin: object = None) -> None:
        sc = self.doc.scenario
        with signals_blocked(self.list):
            while self.list.count() > len(sc.ops):
                self.list.takeItem(self.list.count() - 1)
            while self.list.count() < len(sc.ops):
                item = QListWidgetItem()
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.list.addItem(item)
            for i, op in enumerate(sc.ops):
                item = self.list.item(i)
                if item.text() != op.name:
                    item.setText(op.name)
            if sc.ops and self.list.currentRow() != sc.selected:
                self.list.setCurrentRow(sc.selected)
        n = len(sc.ops)
        has = n > 0
        self.duplicate_button.setEnabled(has)
        self.rename_button.setEnabled(has)
        self.remove_button.setEnabled(has)
        self.up_button.setEnabled(has and sc.selected > 0)
        self.down_button.setEnabled(has and sc.selected < n - 1)

    # -- user actions -------------------------------------------------------------
    def _fill_add_menu(self) -> None:
        self.add_menu.clear()
        for label, name in kind_items():
            a = self.add_menu.addAction(label)
            a.triggered.connect(lambda _=False, n=name: self.add_op(n))

    def add_op(self, kind: str | None = None) -> None:
        sc = self.doc.scenario
        if kind is None:
            kind = sc.ops[sc.selected].kind if sc.ops else "matmul"
        k = OP_KINDS[kind]

        def change(s: Scenario) -> None:
            op = OpSpec(name=unique_name(kind, {o.name for o in s.ops}), kind=kind,
                        dims={d.name: d.default for d in k.dims},
                        dtypes={r: "bf16" for r in k.dtype_roles})
            if s.ops and s.ops[s.selected].kind == kind:
                src = s.ops[s.selected]
                op.dtypes = dict(src.dtypes)
            s.ops.append(op)
            s.selected = len(s.ops) - 1

        self.doc.edit(f"Add {kind}", change, part=OPS, origin=self)

    def duplicate_op(self) -> None:
        sc = self.doc.scenario
        if not sc.ops:
            return

        def change(s: Scenario) -> None:
            op = copy.deepcopy(s.ops[s.selected])
            op.name = unique_name(op.name, {o.name for o in s.ops})
            s.ops.insert(s.selected + 1, op)
            s.selected += 1

        self.doc.edit("Duplicate op", change, part=OPS, origin=self)

    def rename_op(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.list.setFocus()
            self.list.editItem(item)

    def remove_op(self) -> None:
        sc = self.doc.scenario
        if not sc.ops:
            return
        name = sc.ops[sc.selected].name

        def change(s: Scenario) -> None:
            del s.ops[s.selected]
            s.selected = max(0, min(s.selected, len(s.ops) - 1))

        self.doc.edit(f"Remove {name}", change, part=OPS, origin=self)

    def move_op(self, step: int) -> None:
        sc = self.doc.scenario
        i, j = sc.selected, sc.selected + step
        if not (0 <= i < len(sc.ops) and 0 <= j < len(sc.ops)):
            return

        def change(s: Scenario) -> None:
            s.ops[i], s.ops[j] = s.ops[j], s.ops[i]
            s.selected = j

        self.doc.edit("Move op", change, part=OPS, origin=self)

    def _on_row_changed(self, row: int) -> None:
        if row >= 0:
            self.doc.seal()
            self.doc.set_selected(row)

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        row = self.list.row(item)
        sc = self.doc.scenario
        if not 0 <= row < len(sc.ops):
            return
        name = item.text().strip()[:200]
        if not name:
            with signals_blocked(self.list):
                item.setText(sc.ops[row].name)
            return

        def change(s: Scenario) -> None:
            s.ops[row].name = name

        if not self.doc.edit("Rename op", change, part=OPS, origin=self) and item.text() != name:
            with signals_blocked(self.list):  # (the same name, trimmed: no edit to re-sync the list)
                item.setText(name)
