"""The form: the scenario's title, the list of ops, the editor of the selected op, and the
sweep settings.

The op list lives in :mod:`.op_list` (:class:`OpListPanel`) and the editor of the selected
op in :mod:`.op_editor` (:class:`OpEditor`, with its page of fields per op kind in
:mod:`.op_fields`).  This module holds the scenario's title,
:class:`ScenarioForm` (the title, the op list and the op editor together) and
:class:`SweepControls`.

Everything in the form is built from the model's descriptions (``OP_KINDS``,
``OpKind.dims``, ``DTYPE_ROLES``, ``OpKind.shard_axes`` and, when a kind
declares them, ``OpKind.params``), so an op kind registered later appears
with its fields without a change here.  Widgets write the scenario through
:meth:`ScenarioDocument.edit` and are updated from it with their signals
blocked; no widget is created per edit (each op kind's page of fields is
built once, the first time it is shown).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QFrame, QHBoxLayout, QLabel, QLineEdit,
                               QSizePolicy, QVBoxLayout, QWidget)

from roofgui.model.catalog import Catalog
from roofgui.model.ops import OP_KINDS
from roofgui.model.scenario import Scenario
from roofgui.model.units import MIN_VALUE
from roofgui.gui.document import ALL, OPS, SWEEP, TITLE, ScenarioDocument
from roofgui.gui.op_editor import OpEditor
from roofgui.gui.op_list import OpListPanel
from roofgui.gui.widgets import (Binding, QuantityEdit, bind, make_combo, make_label,
                                 set_combo_items)


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
                                                        part=TITLE, key="title", origin=self))
        self.edit.editingFinished.connect(doc.seal)
        doc.changed.connect(self._on_changed)
        self.binding.show(doc.scenario)

    def _on_changed(self, part: str, _origin: object) -> None:
        if part in (TITLE, ALL):
            self.binding.show(self.doc.scenario)


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
        self._build()
        for ed in (self.start_edit, self.stop_edit):
            ed.validityChanged.connect(self._show_messages)
            ed.invalid.connect(lambda _m: self._show_messages())
            ed.editingFinished.connect(doc.seal)
        self.start_edit.check = self._start_problem
        self.stop_edit.check = self._stop_problem
        self.bindings = self._bind()
        doc.changed.connect(self._on_changed)
        self.sync(None)

    def _build(self) -> None:
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
        self.all_ops_check = QCheckBox("All ops")
        self.all_ops_check.setObjectName("sweep_all_ops")
        self.all_ops_check.setToolTip("Draw every op's curves (off: the selected op's alone).")
        lay.addWidget(self.all_ops_check)
        self.message = QLabel()
        self.message.setStyleSheet("color: #d32f2f;")
        self.message.setWordWrap(True)
        lay.addWidget(self.message, 1)
        self.start_edit.message.hide()  # (their messages share one line: self.message)
        self.stop_edit.message.hide()

    def _start_problem(self, v: float) -> str | None:
        sw = self.doc.scenario.sweep
        if v >= sw.stop:
            return f"must be less than To ({sw.stop:g})"
        low = _sweep_minimum(self.doc.scenario)
        return None if v >= low else f"must be at least {low:g} for {sw.dim}"

    def _stop_problem(self, v: float) -> str | None:
        start = self.doc.scenario.sweep.start
        return None if v > start else f"must be greater than From ({start:g})"

    def _bind(self) -> list[Binding]:
        doc = self.doc

        def apply(b: Binding, v: Any) -> None:
            doc.edit(f"Set sweep {b.text}", lambda s: b.write(s, v), part=SWEEP,
                     key=b.undo_key("sweep."), origin=self)

        def w_dim(s: Scenario, v: str) -> None:
            if v:
                s.sweep.dim = v

        def w_y(s: Scenario, v: str) -> None:
            s.sweep.y = v

        def w_all(s: Scenario, v: bool) -> None:
            s.sweep.all_ops = bool(v)

        def w_start(s: Scenario, v: float) -> None:
            s.sweep.start = v

        def w_stop(s: Scenario, v: float) -> None:
            s.sweep.stop = v

        return [
            bind(self.dim_combo, lambda s: s.sweep.dim, w_dim, key="dim", text="dimension", apply=apply),
            bind(self.start_edit, lambda s: s.sweep.start, w_start, key="start", text="start",
                 apply=apply),
            bind(self.stop_edit, lambda s: s.sweep.stop, w_stop, key="stop", text="stop",
                 apply=apply),
            bind(self.y_combo, lambda s: s.sweep.y, w_y, key="y", text="y axis", apply=apply),
            bind(self.all_ops_check, lambda s: s.sweep.all_ops, w_all, key="all_ops",
                 text="all ops", apply=apply),
        ]

    def _on_changed(self, part: str, origin: object) -> None:
        """The sweep, or the ops' kinds (their dimensions are the choices), changed."""
        if part in (SWEEP, OPS, ALL):
            self.sync(origin)

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
