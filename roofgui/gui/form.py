"""The form: the list of ops, the editor of the selected op, and the sweep settings.

Everything here is built from the model's descriptions (``OP_KINDS``,
``OpKind.dims``, ``DTYPE_ROLES``, ``OpKind.shard_axes`` and, when a kind
declares them, ``OpKind.params``), so an op kind registered later appears
with its fields without a change here.  Widgets write the scenario through
:meth:`ScenarioDocument.edit` and are updated from it with their signals
blocked; no widget is created per edit (each op kind's page of fields is
built once, the first time it is shown).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFormLayout, QFrame,
                               QGridLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QListWidgetItem, QMenu, QSizePolicy, QStackedWidget,
                               QToolButton, QVBoxLayout, QWidget)

from ..model.catalog import Catalog
from ..model.chips import LINK_NAMES, SCALE_UP
from ..model.dtypes import DTYPES
from ..model.errors import ModelError
from ..model.ops import DTYPE_ROLES, OP_KINDS, OpKind, op_work
from ..model.scenario import OpSpec, Scenario, ShardSpec
from ..model.units import MAX_VALUE, MIN_VALUE
from .document import ScenarioDocument
from .widgets import (Binding, QuantityEdit, bind, field_with_message, make_combo, make_label,
                      set_combo_items, signals_blocked)

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


def unique_name(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    i = 2
    while f"{base} {i}" in taken:
        i += 1
    return f"{base} {i}"


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


@dataclass(frozen=True)
class ParamSpec:
    """A field of ``OpSpec.params`` shown in the form.

    An op kind may declare these as ``OpKind.params``; a kind that does not can
    be given them here in :data:`PARAM_PROVIDERS`.  ``read(params)`` and
    ``write(params, value)`` default to ``params.get(name, default)`` and
    ``params[name] = value``; ``enabled(params)`` greys the field out.
    """

    name: str
    label: str
    default: Any = None
    help: str = ""
    choices: Any = ()
    integer: bool = False
    max_value: float | None = None
    read: Callable[[dict], Any] | None = None
    write: Callable[[dict, Any], None] | None = None
    enabled: Callable[[dict], bool] | None = None


def _llm_params() -> tuple[ParamSpec, ...]:
    """The LLM step's model picker, step-model choices and architecture fields."""
    from ..model import llm

    def preset_arch(params: dict) -> dict:
        try:
            return llm.resolve_model(params).arch()
        except ModelError:
            return {}

    def write_model(params: dict, v: str) -> None:
        if v == llm.CUSTOM:
            params.update(preset_arch(params))  # start the custom model from the preset shown
        else:
            for k in llm.ARCH_NAMES:
                params.pop(k, None)
        params["model"] = v

    def is_custom(params: dict) -> bool:
        return params.get("model", llm.DEFAULT_MODEL) == llm.CUSTOM

    def arch_field(name: str, label: str, limit: float) -> ParamSpec:
        def write(params: dict, v: float) -> None:
            params[name] = int(v)
        return ParamSpec(name, label, None, f"{label} of the model. Choose “Custom model” to edit it.",
                         integer=True, max_value=limit,
                         read=lambda p: p.get(name, preset_arch(p).get(name)),
                         write=write, enabled=is_custom)

    names = {mid: cfg.name for mid, cfg in llm.presets().items()}
    specs = [
        ParamSpec("model", "Model", llm.DEFAULT_MODEL,
                  "A published model configuration (each figure cited), or a custom model.",
                  choices=lambda: [(mid, names.get(mid, "Custom model")) for mid in llm.model_ids()],
                  write=write_model),
        ParamSpec("t_mem", "Memory time", "refined",
                  "Refined: the weights and KV cache actually read each step. Note: the whole HBM "
                  "read every step, as in the serving-throughput note.",
                  choices=(("refined", "Refined (weights + KV read)"), ("note", "Note (whole HBM)"))),
        ParamSpec("t_net", "Network time", "note",
                  "Note: 4(n−1) AllGathers of the activations per layer. Ring: a bandwidth-optimal "
                  "ring, n times less.",
                  choices=(("note", "Note: 4(n−1)·B·D·S·L"), ("ring", "Ring (÷ n)"))),
    ]
    specs += [arch_field(n, label, limit) for n, label, limit in llm.ARCH_FIELDS]
    return tuple(specs)


#: Param fields for op kinds that do not declare ``OpKind.params`` themselves.
PARAM_PROVIDERS: dict[str, Callable[[], tuple]] = {"llm": _llm_params}


def _param_specs(kind: OpKind) -> tuple:
    declared = getattr(kind, "params", None)
    if declared:
        return tuple(declared)
    provider = PARAM_PROVIDERS.get(kind.name)
    if provider is None:
        return ()
    try:
        return tuple(provider())
    except (ImportError, ModelError):
        return ()


def _choices(spec) -> list[tuple[str, Any]]:
    ch = getattr(spec, "choices", None)
    if not ch:
        return []
    if callable(ch):
        ch = ch()
    if isinstance(ch, dict):
        return [(str(label), value) for value, label in ch.items()]
    out = []
    for c in ch:
        if isinstance(c, (tuple, list)) and len(c) == 2:
            out.append((str(c[1]), c[0]))
        else:
            out.append((str(c), c))
    return out


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
        lay.addLayout(row)

        self.list.currentRowChanged.connect(self._on_row_changed)
        self.list.itemChanged.connect(self._on_item_changed)
        doc.changed.connect(self.sync)
        self.sync(None)

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

        self.doc.edit(f"Add {kind}", change, origin=self)

    def duplicate_op(self) -> None:
        sc = self.doc.scenario
        if not sc.ops:
            return

        def change(s: Scenario) -> None:
            op = copy.deepcopy(s.ops[s.selected])
            op.name = unique_name(op.name, {o.name for o in s.ops})
            s.ops.insert(s.selected + 1, op)
            s.selected += 1

        self.doc.edit("Duplicate op", change, origin=self)

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

        self.doc.edit(f"Remove {name}", change, origin=self)

    def move_op(self, step: int) -> None:
        sc = self.doc.scenario
        i, j = sc.selected, sc.selected + step
        if not (0 <= i < len(sc.ops) and 0 <= j < len(sc.ops)):
            return

        def change(s: Scenario) -> None:
            s.ops[i], s.ops[j] = s.ops[j], s.ops[i]
            s.selected = j

        self.doc.edit("Move op", change, origin=self)

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

        self.doc.edit("Rename op", change, origin=self)


# -- the op editor ------------------------------------------------------------------

class _KindPage(QWidget):
    """The dimension and parameter fields of one op kind (built once)."""

    def __init__(self, kind: OpKind, apply: Callable[[Binding, Any], None]) -> None:
        super().__init__()
        self.kind = kind
        self.bindings: list[Binding] = []
        self.enabling: list[tuple[QWidget, Callable[[dict], bool]]] = []
        self.edits: dict[str, QuantityEdit] = {}
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for spec in kind.dims:
            edit = QuantityEdit(spec.label, spec.help, integer=spec.integer,
                                min_value=0.0 if spec.integer else MIN_VALUE)
            edit.setObjectName(f"dim_{spec.name}")
            edit.setPlaceholderText(f"e.g. {spec.default:g}")
            form.addRow(make_label(spec.label, edit, edit.toolTip()), field_with_message(edit))
            self.edits[spec.name] = edit
            name, default = spec.name, spec.default

            def write(op: OpSpec, v: float, name=name) -> None:
                op.dims[name] = float(v)

            self.bindings.append(bind(edit, (lambda op, name=name, default=default:
                                             op.dims.get(name, default)),
                                      write, key=f"dims.{name}", text=spec.name, apply=apply))
        for spec in _param_specs(kind):
            self._add_param(form, spec, apply)

    def _add_param(self, form: QFormLayout, spec, apply) -> None:
        name = spec.name
        label = getattr(spec, "label", name)
        tip = getattr(spec, "help", "") or label
        default = getattr(spec, "default", None)
        choices = _choices(spec)
        custom_read = getattr(spec, "read", None)
        custom_write = getattr(spec, "write", None)
        enabled = getattr(spec, "enabled", None)

        def read(op: OpSpec, name=name, d=default):
            return custom_read(op.params) if custom_read else op.params.get(name, d)

        def write_any(op: OpSpec, v: Any, name=name) -> None:
            if custom_write:
                custom_write(op.params, v)
            else:
                op.params[name] = v
        if choices:
            w: QWidget = make_combo(label, tip, choices)
            shown: QWidget = w
        elif isinstance(default, bool):
            w = QCheckBox(label)
            w.setAccessibleName(label)
            w.setToolTip(tip)
            form.addRow("", w)
            w.setObjectName(f"param_{name}")
            self.bindings.append(bind(w, read, lambda op, v: write_any(op, bool(v)),
                                      key=f"params.{name}", text=label, apply=apply))
            if enabled:
                self.enabling.append((w, enabled))
            return
        elif isinstance(default, (int, float)) or getattr(spec, "integer", False):
            w = QuantityEdit(label, tip, integer=bool(getattr(spec, "integer", False)),
                             max_value=getattr(spec, "max_value", None) or MAX_VALUE)
            w.check = lambda v, write_any=write_any: self._param_problem(write_any, v)
            shown = field_with_message(w)
        else:
            w = QLineEdit()
            shown = w
        w.setObjectName(f"param_{name}")
        form.addRow(make_label(label, w, tip), shown)
        self.bindings.append(bind(w, read, write_any, key=f"params.{name}", text=label, apply=apply))
        if enabled:
            self.enabling.append((w, enabled))

    def _param_problem(self, write: Callable[[OpSpec, Any], None], value: Any) -> str | None:
        """What the model says of the shown op with this parameter value (None: it is fine),
        so that a value the model would refuse is refused in its field."""
        op = getattr(self, "_op", None)
        if op is None:
            return None
        trial = copy.deepcopy(op)
        try:
            write(trial, value)
            for phase in self.kind.phases:
                op_work(self.kind, trial.full_dims(), trial.dtypes, None, trial.params, phase)
        except ModelError as e:
            return str(e)
        return None

    def show(self, op: OpSpec, force: bool) -> None:
        self._op = op
        for b in self.bindings:
            b.show(op, force)
        for w, rule in self.enabling:
            try:
                w.setEnabled(bool(rule(op.params)))
            except Exception:  # a rule must never break the form  # noqa: BLE001
                w.setEnabled(True)


class OpEditor(QWidget):
    """Type, dimensions, dtypes and sharding of the selected op."""

    def __init__(self, doc: ScenarioDocument, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.catalog = catalog
        self._shown_key: tuple | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(6)

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
        lay.addLayout(top)

        self.pages = QStackedWidget()
        self._pages: dict[str, _KindPage] = {}
        lay.addWidget(self.pages)

        # dtypes: a two-column grid of label + combo
        self.dtype_box = QGroupBox("Data types")
        self.dtype_grid = QGridLayout(self.dtype_box)
        self.dtype_grid.setContentsMargins(6, 4, 6, 4)
        self.dtype_grid.setHorizontalSpacing(6)
        self.dtype_grid.setVerticalSpacing(3)
        self._dtype_rows: dict[str, tuple[QLabel, QComboBox, Binding]] = {}
        lay.addWidget(self.dtype_box)

        # sharding
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
        self.chips_edit.setMaximumWidth(90)
        lay.addWidget(self.shard_box)

        self.empty = QLabel("No op selected. Add one with “Add”.")
        self.empty.setWordWrap(True)
        lay.addWidget(self.empty)
        lay.addStretch(1)

        apply = self._apply
        self.common: list[Binding] = [
            bind(self.kind_combo, lambda op: op.kind, self._write_kind, key="kind", text="type",
                 apply=apply),
            bind(self.axis_combo, lambda op: op.shard.axis if op.shard else "", self._write_axis,
                 key="shard.axis", text="sharding", apply=apply),
            bind(self.chips_edit, lambda op: op.shard.n if op.shard else 2, self._write_n,
                 key="shard.n", text="chips", apply=apply),
            bind(self.link_combo, lambda op: op.shard.link if op.shard else self._default_link(),
                 self._write_link, key="shard.link", text="link", apply=apply),
        ]
        for ed in (self.chips_edit,):
            ed.editingFinished.connect(doc.seal)
        doc.changed.connect(self.sync)
        self.sync(None)

    # -- writing -----------------------------------------------------------------
    def _apply(self, b: Binding, value: Any) -> None:
        sc = self.doc.scenario
        if not sc.ops:
            return
        i = sc.selected

        def change(s: Scenario) -> None:
            b.write(s.ops[i], value)

        self.doc.edit(f"Set {b.text} of {sc.ops[i].name}", change, key=b.undo_key(f"op{i}."),
                      origin=self)

    def _write_kind(self, op: OpSpec, kind: str) -> None:
        if kind in OP_KINDS:
            change_kind(op, kind)

    def _write_axis(self, op: OpSpec, axis: str) -> None:
        if not axis:
            op.shard = None
        elif op.shard is None:
            n = int(self.chips_edit.value() or 2)
            op.shard = ShardSpec(axis, max(n, 2), self._default_link())
        else:
            op.shard.axis = axis

    def _write_n(self, op: OpSpec, n: float) -> None:
        if op.shard is not None:
            op.shard.n = int(n)

    def _write_link(self, op: OpSpec, link: str) -> None:
        if op.shard is not None:
            op.shard.link = link

    def _default_link(self) -> str:
        """Each chip's own scale-up link (ICI on TPUs, NVLink on NVIDIA, xGMI on AMD …): turning
        sharding on then works on every checked chip, whatever its vendor."""
        return SCALE_UP

    # -- reading -----------------------------------------------------------------
    def page(self, kind: str) -> _KindPage:
        p = self._pages.get(kind)
        if p is None:
            p = _KindPage(OP_KINDS[kind], self._apply)
            for ed in p.edits.values():
                ed.editingFinished.connect(self.doc.seal)
            self._pages[kind] = p
            self.pages.addWidget(p)
        return p

    def _fix_tab_order(self, page: _KindPage) -> None:
        """Type → the page's fields → dtypes → sharding, whatever order they were built in."""
        chain: list[QWidget] = [self.kind_combo]
        chain += [b.widget for b in page.bindings]
        chain += [self._dtype_rows[r][1] for r in DTYPE_ROLES if r in self._dtype_rows]
        chain += [self.axis_combo, self.chips_edit, self.link_combo]
        for a, b in zip(chain, chain[1:]):
            QWidget.setTabOrder(a, b)

    def current_page(self) -> _KindPage | None:
        w = self.pages.currentWidget()
        return w if isinstance(w, _KindPage) else None

    def dim_edit(self, name: str) -> QuantityEdit:
        """The field of a dimension of the selected op (for tests and the keyboard)."""
        page = self.current_page()
        assert page is not None
        return page.edits[name]

    def sync(self, origin: object = None) -> None:
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
        force = origin is not self or key != self._shown_key
        self._shown_key = key
        page = self.page(op.kind)
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
        self.description.setText(kind.description)
        self.description.setVisible(bool(kind.description))
        page.show(op, force)
        built = len(self._dtype_rows)
        self._sync_dtypes(op, kind, force)
        if key != getattr(self, "_ordered_key", None) or built != len(self._dtype_rows):
            self._ordered_key = key
            self._fix_tab_order(page)
        # sharding
        axes = [("Not sharded", "")] + [(f"Split {a}", a) for a in kind.shard_axes]
        set_combo_items(self.axis_combo, axes)
        self.shard_box.setEnabled(bool(kind.shard_axes))
        self.shard_box.setToolTip("" if kind.shard_axes else f"{kind.label} is not sharded.")
        for b in self.common:
            b.show(op, force)
        sharded = op.shard is not None
        self.chips_edit.setEnabled(sharded)
        self.link_combo.setEnabled(sharded)

    def _sync_dtypes(self, op: OpSpec, kind: OpKind, force: bool) -> None:
        items = [(f"{d.name} · {d.bytes:g} B", d.name) for d in DTYPES.values()]
        compute_items = [(d.name, d.name) for d in DTYPES.values()]
        for role, label in DTYPE_ROLES.items():
            if role not in self._dtype_rows:
                combo = make_combo(label, DTYPE_HELP.get(role, f"Data type: {label}"),
                                   compute_items if role == "compute" else items)
                combo.setObjectName(f"dtype_{role}")
                lab = make_label(label, combo, combo.toolTip())
                n = len(self._dtype_rows)
                r, c = divmod(n, 2)
                self.dtype_grid.addWidget(lab, r, 2 * c)
                self.dtype_grid.addWidget(combo, r, 2 * c + 1)
                self.dtype_grid.setColumnStretch(2 * c + 1, 1)

                def write(o: OpSpec, v: str, role=role) -> None:
                    o.dtypes[role] = v

                b = bind(combo, lambda o, role=role: o.dtypes.get(role, "bf16"), write,
                         key=f"dtypes.{role}", text=f"{label.split(' (')[0].lower()} dtype",
                         apply=self._apply)
                self._dtype_rows[role] = (lab, combo, b)
        for role, (lab, combo, b) in self._dtype_rows.items():
            on = role in kind.dtype_roles
            lab.setVisible(on)
            combo.setVisible(on)
            if on:
                b.show(op, force)

    def dtype_combo(self, role: str) -> QComboBox:
        return self._dtype_rows[role][1]


# -- scenario-level fields ---------------------------------------------------------------

class TitleEdit(QWidget):
    """The scenario's title (the question it answers)."""

    def __init__(self, doc: ScenarioDocument) -> None:
        super().__init__()
        self.doc = doc
        lay = QFormLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.edit = QLineEdit()
        self.edit.setObjectName("title")
        self.edit.setPlaceholderText("What question does this scenario answer?")
        lay.addRow(make_label("Title", self.edit, "The scenario's title: shown in the window and "
                              "on exported plots."), self.edit)

        def write(s: Scenario, v: str) -> None:
            s.title = v[:500]

        self.binding = bind(self.edit, lambda s: s.title, write, key="title", text="title",
                            apply=lambda b, v: doc.edit("Set title", lambda s: b.write(s, v),
                                                        key="title", origin=self))
        self.edit.editingFinished.connect(doc.seal)
        doc.changed.connect(lambda o: self.binding.show(doc.scenario))
        self.binding.show(doc.scenario)


class ScenarioForm(QWidget):
    """The left-hand form: the title, the op list and the selected op's editor."""

    def __init__(self, doc: ScenarioDocument, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        lay.setSpacing(6)
        self.title = TitleEdit(doc)
        lay.addWidget(self.title)
        self.ops = OpListPanel(doc)
        lay.addWidget(self.ops)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        lay.addWidget(line)
        self.editor = OpEditor(doc, catalog)
        lay.addWidget(self.editor, 1)
        QWidget.setTabOrder(self.title.edit, self.ops.list)


def _sweep_minimum(sc: Scenario) -> float:
    """The least value the swept dimension takes in any op (1 for whole-number dimensions)."""
    for op in sc.ops:
        k = OP_KINDS.get(op.kind)
        for d in (k.dims if k is not None else ()):
            if d.name == sc.sweep.dim:
                return 1.0 if d.integer else MIN_VALUE
    return MIN_VALUE


class SweepControls(QWidget):
    """Which dimension the sweep varies, over what range, and what it plots."""

    def __init__(self, doc: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.setSpacing(6)
        self.dim_combo = make_combo("Sweep", "The dimension varied along the x axis "
                                    "(the others stay as set in each op).", [])
        self.dim_combo.setObjectName("sweep_dim")
        self.dim_combo.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        # another scenario's dimension names ("Batch B (concurrent requests)") are shown whole
        self.dim_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.start_edit = QuantityEdit("From", "First value of the swept dimension.")
        self.start_edit.setObjectName("sweep_start")
        self.stop_edit = QuantityEdit("To", "Last value of the swept dimension.")
        self.stop_edit.setObjectName("sweep_stop")
        self.y_combo = make_combo("Plot", "What the y axis shows: attainable FLOP/s or time per op.",
                                  [("Attainable FLOP/s", "flops"), ("Time per op", "time")])
        self.y_combo.setObjectName("sweep_y")
        self.y_combo.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        for w in (self.start_edit, self.stop_edit):
            w.setMaximumWidth(90)
        for label, w in (("Sweep", self.dim_combo), ("From", self.start_edit), ("To", self.stop_edit),
                         ("Plot", self.y_combo)):
            lay.addWidget(make_label(label, w, w.toolTip()))
            lay.addWidget(w)
        self.message = QLabel()
        self.message.setStyleSheet("color: #d32f2f;")
        self.message.setWordWrap(True)
        lay.addWidget(self.message, 1)
        self.start_edit.message.hide()
        self.stop_edit.message.hide()
        for ed in (self.start_edit, self.stop_edit):
            ed.validityChanged.connect(self._show_messages)
            ed.invalid.connect(lambda _m: self._show_messages())
            ed.editingFinished.connect(doc.seal)

        def apply(b: Binding, v: Any) -> None:
            doc.edit(f"Set sweep {b.text}", lambda s: b.write(s, v), key=b.undo_key("sweep."),
                     origin=self)

        def w_dim(s: Scenario, v: str) -> None:
            if v:
                s.sweep.dim = v

        def w_y(s: Scenario, v: str) -> None:
            s.sweep.y = v

        def w_start(s: Scenario, v: float) -> None:
            s.sweep.start = v

        def w_stop(s: Scenario, v: float) -> None:
            s.sweep.stop = v

        def start_problem(v: float) -> str | None:
            if v >= doc.scenario.sweep.stop:
                return f"must be less than To ({doc.scenario.sweep.stop:g})"
            low = _sweep_minimum(doc.scenario)
            return None if v >= low else f"must be at least {low:g} for {doc.scenario.sweep.dim}"

        self.start_edit.check = start_problem
        self.stop_edit.check = lambda v: (None if v > doc.scenario.sweep.start else
                                          f"must be greater than From ({doc.scenario.sweep.start:g})")
        self.bindings = [
            bind(self.dim_combo, lambda s: s.sweep.dim, w_dim, key="dim", text="dimension", apply=apply),
            bind(self.start_edit, lambda s: s.sweep.start, w_start, key="start", text="start",
                 apply=apply),
            bind(self.stop_edit, lambda s: s.sweep.stop, w_stop, key="stop", text="stop",
                 apply=apply),
            bind(self.y_combo, lambda s: s.sweep.y, w_y, key="y", text="y axis", apply=apply),
        ]
        doc.changed.connect(self.sync)
        self.sync(None)

    def _show_messages(self) -> None:
        msgs = [e.error() for e in (self.start_edit, self.stop_edit) if e.error()]
        self.message.setText("  ".join(m for m in msgs if m))

    def sync(self, origin: object = None) -> None:
        sc = self.doc.scenario
        dims: list[tuple[str, str]] = []
        seen = set()
        for op in sc.ops:
            k = OP_KINDS.get(op.kind)
            if k is None:
                continue
            for d in k.dims:
                if d.name not in seen:
                    seen.add(d.name)
                    dims.append((d.label, d.name))
        if sc.sweep.dim not in seen:
            dims.append((sc.sweep.dim, sc.sweep.dim))
        set_combo_items(self.dim_combo, dims)
        force = origin is not self
        for b in self.bindings:
            b.show(sc, force)
        self._show_messages()
