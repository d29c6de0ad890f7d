"""The editor of the selected op: its type, dimensions, parameters, data types and sharding.

:class:`OpEditor` shows one page of fields per op kind (:class:`_KindPage`, built once, the
first time that kind is shown), then the data types and the sharding.  The fields come from
the model's descriptions (``OpKind.dims``, ``DTYPE_ROLES``, ``OpKind.shard_axes`` and, when a
kind declares them, ``OpKind.params``; :data:`PARAM_PROVIDERS` gives the LLM step its
parameter fields), so an op kind registered later appears with its fields without a change
here.  :func:`change_kind` turns an op into another kind, keeping what still applies.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGridLayout, QGroupBox, QLabel,
                               QLineEdit, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget)

from roofgui.model.catalog import Catalog
from roofgui.model.chips import LINK_NAMES, SCALE_UP
from roofgui.model.dtypes import DTYPES
from roofgui.model.errors import ModelError
from roofgui.model.ops import DTYPE_ROLES, OP_KINDS, OpKind, op_work
from roofgui.model.scenario import OpSpec, Scenario, ShardSpec
from roofgui.model.units import MAX_VALUE, MIN_VALUE
from roofgui.gui.document import ScenarioDocument, copy_op
from roofgui.gui.widgets import (Binding, QuantityEdit, bind, field_with_message, make_combo, make_label,
                      set_combo_items)

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
    from roofgui.model import llm

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
        ParamSpec("t_net", "Network time", llm.T_NET_DEFAULT, "; ".join(llm.T_NET_LABELS.values()),
                  choices=tuple(llm.T_NET_LABELS.items())),
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

    def set_op(self, op: OpSpec) -> None:
        """The op whose fields these are (a parameter's check tries values on it)."""
        self._op = op

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
        #: a copy of the op as last shown (None: show everything at the next sync)
        self._shown_op: OpSpec | None = None
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
        """Show the selected op.  After an edit of the op shown (the same op, kind and number of
        ops; not undo, redo or loading) only the fields whose part of it changed are re-read:
        the type's page (dimensions, parameters), the data types, the sharding."""
        sc = self.doc.scenario
        shown = self._shown_op
        op = sc.ops[max(0, min(sc.selected, len(sc.ops) - 1))] if sc.ops else None
        if (op is None or shown is None or origin is None
                or (sc.selected, op.kind, len(sc.ops)) != self._shown_key):
            self._shown_op = None
            self._sync_all(origin)
            if self._shown_key is not None and op is not None and op.kind in OP_KINDS:
                self._shown_op = copy_op(op)
            return
        force = origin is not self
        if op.dims != shown.dims or op.params != shown.params:
            self.page(op.kind).show(op, force)
        else:
            self.page(op.kind).set_op(op)
        if op.dtypes != shown.dtypes:
            for role in OP_KINDS[op.kind].dtype_roles:
                row = self._dtype_rows.get(role)
                if row is not None:
                    row[2].show(op, force)
        if op.shard != shown.shard:
            self._sync_shard(op, force)
        self._shown_op = copy_op(op)

    def _sync_shard(self, op: OpSpec, force: bool) -> None:
        for b in self.common[1:]:  # (after the type)
            b.show(op, force)
        sharded = op.shard is not None
        self.chips_edit.setEnabled(sharded)
        self.link_combo.setEnabled(sharded)

    def _sync_all(self, origin: object) -> None:
        """Show the selected op, every field of it."""
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
        self.common[0].show(op, force)  # (the type)
        self._sync_shard(op, force)

    def _sync_dtypes(self, op: OpSpec, kind: OpKind, force: bool) -> None:
        for role, label in DTYPE_ROLES.items():
            if role not in self._dtype_rows:
                items = ([(d.name, d.name) for d in DTYPES.values()] if role == "compute" else
                         [(f"{d.name} · {d.bytes:g} B", d.name) for d in DTYPES.values()])
                combo = make_combo(label, DTYPE_HELP.get(role, f"Data type: {label}"), items)
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
