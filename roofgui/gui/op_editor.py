"""The editor of the selected op: its type, dimensions, parameters, data types and sharding.

:class:`OpEditor` shows one page of fields per op kind (:class:`~roofgui.gui.op_fields.KindPage`,
built once, the first time that kind is shown), then the data types and the sharding.  The
fields come from the model's descriptions (``OpKind.dims``, ``DTYPE_ROLES``,
``OpKind.shard_axes``, ``OpKind.params``), so an op kind registered later appears with its
fields without a change here.  :func:`change_kind` turns an op into another kind, keeping
what still applies.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (QComboBox, QFormLayout, QGridLayout, QGroupBox, QLabel,
                               QSizePolicy, QStackedWidget, QVBoxLayout, QWidget)

from roofgui.gui.document import ALL, OPS, SELECTED, ScenarioDocument, op_part
from roofgui.gui.op_fields import KindPage
from roofgui.gui.widgets import Binding, QuantityEdit, bind, make_combo, make_label, set_combo_items
from roofgui.model.catalog import Catalog
from roofgui.model.chips import LINK_NAMES, SCALE_UP
from roofgui.model.dtypes import DTYPES
from roofgui.model.ops import DTYPE_ROLES, OP_KINDS, OpKind
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec


LINK_LABELS = {
    SCALE_UP: "Each chip's scale-up link (ICI / NVLink / xGMI …)",
    "ici": "ICI (TPU inter-chip)",
    "nvlink": "NVLink",
    "xgmi": "xGMI / Infinity Fabric",
    "neuronlink": "NeuronLink",
    "pcie": "PCIe",
    "dcn": "Data-centre network",
    "ethernet": "Ethernet",
}

DTYPE_HELP = {
    "x": "Data type of the activations (the left operand X): sets the bytes read per element.",
    "w": "Data type of the weights (the right operand Y): sets the bytes read per element.",
    "out": "Data type of the output written back to memory (Z): sets the bytes written per element.",
    "compute": "Data type the arithmetic runs in: picks which of the chip's peak FLOP/s applies.",
}


def kind_items() -> list[tuple[str, str]]:
    return [(k.label, k.name) for k in OP_KINDS.values()]


def change_kind(op: OpSpec, kind_name: str) -> None:
    """Turn ``op`` into an op of another kind, keeping what still applies."""
    old = op.kind
    k = OP_KINDS[kind_name]
    op.kind = kind_name
    op.dims = {n: v for n, v in op.dims.items() if n in k.dim_names()}
    op.dtypes = {r: v for r, v in op.dtypes.items() if r in k.dtype_roles}
    if op.shard is not None and op.shard.axis not in k.shard_axes:
        op.shard = None
    if old != kind_name:
        op.params = {}
    if op.name == old:
        op.name = kind_name


class OpEditor(QWidget):
    """Type, dimensions, dtypes and sharding of the selected op."""

    def __init__(self, doc: ScenarioDocument, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.catalog = catalog
        #: (selected, kind, number of ops) of the op shown: another one is shown afresh
        self._shown_key: tuple | None = None
        #: the field being written into the scenario (its change is told back at once)
        self._writing: Binding | None = None
        self._ordered_key: tuple | None = None
        self._pages: dict[str, KindPage] = {}
        self._dtype_rows: dict[str, tuple[QLabel, QComboBox, Binding]] = {}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)
        lay.addLayout(self._build_type())
        self.pages = QStackedWidget()
        lay.addWidget(self.pages)
        self.dtype_box = QGroupBox("Data types")  # (a two-column grid of label + combo)
        self.dtype_grid = QGridLayout(self.dtype_box)
        self.dtype_grid.setContentsMargins(6, 4, 6, 4)
        self.dtype_grid.setHorizontalSpacing(6)
        self.dtype_grid.setVerticalSpacing(3)
        lay.addWidget(self.dtype_box)
        lay.addWidget(self._build_shard_box())
        self.empty = QLabel("No op selected. Add one with “Add”.")
        self.empty.setWordWrap(True)
        lay.addWidget(self.empty)
        lay.addStretch(1)
        self.common = self._bind_common()
        self.chips_edit.editingFinished.connect(doc.seal)
        doc.changed.connect(self._on_changed)
        self.sync(None)

    def _build_type(self) -> QFormLayout:
        top = QFormLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.kind_combo = make_combo("Type", "The kind of op: sets which dimensions and data types apply.",
                                     kind_items())
        self.kind_combo.setObjectName("kind")
        top.addRow(make_label("Type", self.kind_combo, self.kind_combo.toolTip()), self.kind_combo)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setEnabled(False)  # muted text
        top.addRow(self.description)
        return top

    def _build_shard_box(self) -> QGroupBox:
        self.shard_box = QGroupBox("Sharding")
        sg = QGridLayout(self.shard_box)
        sg.setContentsMargins(6, 4, 6, 4)
        sg.setHorizontalSpacing(6)
        sg.setVerticalSpacing(3)
        self.axis_combo = make_combo("Split", "Split one dimension evenly over several chips. "
                                     "Splitting the contracted dimension D needs an all-reduce of the "
                                     "partial sums over the link.", [("Not sharded", "")])
        self.axis_combo.setObjectName("shard_axis")
        self.chips_edit = QuantityEdit("Chips", "Number of chips the dimension is split over.",
                                       integer=True, max_value=1_000_000)
        self.chips_edit.setObjectName("shard_n")
        self.chips_edit.setMaximumWidth(90)
        self.link_combo = make_combo("Link", "The chip-to-chip link the shards communicate over "
                                     "(its one-way bandwidth per chip comes from each chip's spec). "
                                     "“Each chip's scale-up link” takes every chip's own fastest one "
                                     "(ICI on a TPU, NVLink on an NVIDIA GPU, xGMI on an AMD GPU …), "
                                     "so one sharded op compares across vendors.",
                                     [(LINK_LABELS.get(n, n), n) for n in (SCALE_UP,) + LINK_NAMES])
        self.link_combo.setObjectName("shard_link")
        sg.addWidget(make_label("Split", self.axis_combo, self.axis_combo.toolTip()), 0, 0)
        sg.addWidget(self.axis_combo, 0, 1)
        sg.addWidget(make_label("Chips", self.chips_edit, self.chips_edit.toolTip()), 0, 2)
        sg.addWidget(self.chips_edit, 0, 3)
        sg.addWidget(self.chips_edit.message, 2, 0, 1, 4)
        sg.addWidget(make_label("Link", self.link_combo, self.link_combo.toolTip()), 1, 0)
        sg.addWidget(self.link_combo, 1, 1, 1, 3)
        sg.setColumnStretch(1, 2)
        sg.setColumnStretch(3, 1)
        return self.shard_box

    def _bind_common(self) -> list[Binding]:
        """The type and the sharding (the type first: see :meth:`_sync_shard`)."""
        apply = self._apply
        return [
            bind(self.kind_combo, lambda op: op.kind, self._write_kind, key="kind", text="type",
                 apply=apply),
            bind(self.axis_combo, lambda op: op.shard.axis if op.shard else "", self._write_axis,
                 key="shard.axis", text="sharding", apply=apply),
            bind(self.chips_edit, lambda op: op.shard.n if op.shard else 2, self._write_n,
                 key="shard.n", text="chips", apply=apply),
            bind(self.link_combo, lambda op: op.shard.link if op.shard else SCALE_UP,
                 self._write_link, key="shard.link", text="link", apply=apply),
        ]

    # -- writing -----------------------------------------------------------------
    def _apply(self, b: Binding, value: Any) -> None:
        sc = self.doc.scenario
        if not sc.ops:
            return
        i = sc.selected

        def change(s: Scenario) -> None:
            b.write(s.ops[i], value)

        # (another kind changes the ops' kinds and maybe the name: a change of the list)
        part = OPS if b.widget is self.kind_combo else op_part(i)
        self._writing = b
        try:
            self.doc.edit(f"Set {b.text} of {sc.ops[i].name}", change, part=part,
                          key=b.undo_key(f"op{i}."), origin=self)
        finally:
            self._writing = None

    def _write_kind(self, op: OpSpec, kind: str) -> None:
        if kind in OP_KINDS:
            change_kind(op, kind)

    def _write_axis(self, op: OpSpec, axis: str) -> None:
        """Sharding off, on (over the chips shown, each chip's own scale-up link: ICI on
        TPUs, NVLink on NVIDIA, xGMI on AMD …, so it works on every chip), or another axis."""
        if not axis:
            op.shard = None
        elif op.shard is None:
            n = int(self.chips_edit.value() or 2)
            op.shard = ShardSpec(axis, max(n, 2), SCALE_UP)
        else:
            op.shard.axis = axis

    def _write_n(self, op: OpSpec, n: float) -> None:
        if op.shard is not None:
            op.shard.n = int(n)

    def _write_link(self, op: OpSpec, link: str) -> None:
        if op.shard is not None:
            op.shard.link = link

    # -- reading -----------------------------------------------------------------
    def page(self, kind: str) -> KindPage:
        p = self._pages.get(kind)
        if p is None:
            p = KindPage(OP_KINDS[kind], self._apply)
            for ed in p.edits.values():
                ed.editingFinished.connect(self.doc.seal)
            self._pages[kind] = p
            self.pages.addWidget(p)
        return p

    def focus_chain(self) -> list[QWidget]:
        """Type → the shown page's fields → dtypes → sharding, whatever order they were built in."""
        page = self.current_page()
        chain: list[QWidget] = [self.kind_combo]
        chain += [b.widget for b in page.bindings] if page is not None else []
        chain += [self._dtype_rows[r][1] for r in DTYPE_ROLES if r in self._dtype_rows]
        return chain + [self.axis_combo, self.chips_edit, self.link_combo]

    def _fix_tab_order(self) -> None:
        chain = self.focus_chain()
        for a, b in zip(chain, chain[1:]):
            QWidget.setTabOrder(a, b)

    def current_page(self) -> KindPage | None:
        w = self.pages.currentWidget()
        return w if isinstance(w, KindPage) else None

    def dim_edit(self, name: str) -> QuantityEdit:
        """The field of a dimension of the selected op (for tests and the keyboard)."""
        page = self.current_page()
        assert page is not None
        return page.edits[name]

    def dtype_combo(self, role: str) -> QComboBox:
        return self._dtype_rows[role][1]

    # -- showing the selected op ---------------------------------------------------
    def _on_changed(self, part: str, origin: object) -> None:
        """The ops, which is selected, or a field of the selected op changed.  A dimension
        typed here changes no other field and shows what was typed: the page is told the
        new op, and nothing is shown again."""
        page = self.current_page()
        sc = self.doc.scenario
        if origin is self and page is not None and self._writing is not None \
                and self._writing.widget in page.edits.values() and sc.ops:
            page.set_op(sc.ops[sc.selected])
            return
        if part in (OPS, SELECTED, ALL) or part == op_part(sc.selected):
            self.sync(origin)

    def sync(self, origin: object = None) -> None:
        """Show the selected op, every field of it.  A field is forced to the scenario's
        value (an unfinished entry in it replaced) when another op is shown, or after
        undo, redo and loading; else an unfinished entry stays as typed."""
        sc = self.doc.scenario
        has = bool(sc.ops)
        for w in (self.pages, self.dtype_box, self.shard_box, self.kind_combo, self.description):
            w.setVisible(has)
        self.empty.setVisible(not has)
        if not has:
            self._shown_key = None
            return
        set_combo_items(self.kind_combo, kind_items())
        op = sc.ops[max(0, min(sc.selected, len(sc.ops) - 1))]
        if op.kind not in OP_KINDS:
            return
        kind = OP_KINDS[op.kind]
        key = (sc.selected, op.kind, len(sc.ops))
        force = origin is None or key != self._shown_key
        self._shown_key = key
        page = self._show_page(op.kind)
        self.description.setText(kind.description)
        self.description.setVisible(bool(kind.description))
        page.show(op, force)
        built = len(self._dtype_rows)
        self._sync_dtypes(op, kind, force)
        if key != self._ordered_key or built != len(self._dtype_rows):
            self._ordered_key = key
            self._fix_tab_order()
        axes = [("Not sharded", "")] + [(f"Split {a}", a) for a in kind.shard_axes]
        set_combo_items(self.axis_combo, axes)
        self.shard_box.setEnabled(bool(kind.shard_axes))
        self.shard_box.setToolTip("" if kind.shard_axes else f"{kind.label} is not sharded.")
        self.common[0].show(op, force)  # (the type)
        self._sync_shard(op, force)

    def _show_page(self, kind: str) -> KindPage:
        page = self.page(kind)
        if self.pages.currentWidget() is not page:
            self.pages.setCurrentWidget(page)
            # a stack is as tall as its tallest page: let only the shown one count, or a
            # matmul after an LLM step leaves the LLM fields' height blank above Data types
            for i in range(self.pages.count()):
                w = self.pages.widget(i)
                pol = QSizePolicy.Policy.Preferred if w is page else QSizePolicy.Policy.Ignored
                w.setSizePolicy(pol, pol)
            self.pages.adjustSize()
            self.pages.updateGeometry()
        return page

    def _sync_shard(self, op: OpSpec, force: bool) -> None:
        for b in self.common[1:]:  # (after the type)
            b.show(op, force)
        sharded = op.shard is not None
        self.chips_edit.setEnabled(sharded)
        self.link_combo.setEnabled(sharded)

    def _dtype_row(self, role: str, label: str) -> tuple[QLabel, QComboBox, Binding]:
        """The label and combo of a data type (built when a kind first needs it)."""
        items = ([(d.name, d.name) for d in DTYPES.values()] if role == "compute" else
                 [(f"{d.name} · {d.bytes:g} B", d.name) for d in DTYPES.values()])
        combo = make_combo(label, DTYPE_HELP.get(role, f"Data type: {label}"), items)
        combo.setObjectName(f"dtype_{role}")
        lab = make_label(label, combo, combo.toolTip())
        r, c = divmod(len(self._dtype_rows), 2)
        self.dtype_grid.addWidget(lab, r, 2 * c)
        self.dtype_grid.addWidget(combo, r, 2 * c + 1)
        self.dtype_grid.setColumnStretch(2 * c + 1, 1)

        def write(o: OpSpec, v: str) -> None:
            o.dtypes[role] = v

        b = bind(combo, lambda o: o.dtypes.get(role, "bf16"), write, key=f"dtypes.{role}",
                 text=f"{label.split(' (')[0].lower()} dtype", apply=self._apply)
        return lab, combo, b

    def _sync_dtypes(self, op: OpSpec, kind: OpKind, force: bool) -> None:
        for role, label in DTYPE_ROLES.items():
            if role not in self._dtype_rows:
                self._dtype_rows[role] = self._dtype_row(role, label)
        for role, (lab, combo, b) in self._dtype_rows.items():
            on = role in kind.dtype_roles
            lab.setVisible(on)
            combo.setVisible(on)
            if on:
                b.show(op, force)
