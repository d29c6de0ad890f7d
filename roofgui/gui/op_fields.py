"""The fields of one op kind: its dimensions and parameters (:class:`KindPage`).

The fields come from the model's descriptions (``OpKind.dims`` and, when a kind declares
them, ``OpKind.params``); :data:`PARAM_PROVIDERS` gives the LLM step its parameter fields.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtWidgets import QCheckBox, QFormLayout, QLineEdit, QWidget

from roofgui.gui.widgets import Binding, QuantityEdit, bind, field_with_message, make_combo, make_label
from roofgui.model.errors import ModelError
from roofgui.model.ops import OpKind, op_work
from roofgui.model.scenario import OpSpec
from roofgui.model.units import MAX_VALUE, MIN_VALUE


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


def param_specs(kind: OpKind) -> tuple:
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


def field_choices(spec) -> list[tuple[str, Any]]:
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


class KindPage(QWidget):
    """The dimension and parameter fields of one op kind (built once)."""

    def __init__(self, kind: OpKind, apply: Callable[[Binding, Any], None]) -> None:
        super().__init__()
        self.kind = kind
        self.bindings: list[Binding] = []
        self.enabling: list[tuple[QWidget, Callable[[dict], bool]]] = []
        self.edits: dict[str, QuantityEdit] = {}
        self._op: OpSpec | None = None  # the op shown (a parameter's check tries values on it)
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
        for spec in param_specs(kind):
            self._add_param(form, spec, apply)

    def _add_param(self, form: QFormLayout, spec, apply) -> None:
        name = spec.name
        label = getattr(spec, "label", name)
        tip = getattr(spec, "help", "") or label
        default = getattr(spec, "default", None)
        choices = field_choices(spec)
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
        op = self._op
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
        """The op the fields show (what a parameter's check tries values on), when a field
        of it was typed here and the others show it already."""
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
