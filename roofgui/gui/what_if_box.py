"""The chips panel's "What if" box: multipliers of every chip's peaks, HBM and link
bandwidths, and derating to each chip's achievable fraction of peak."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QGridLayout, QGroupBox, QToolButton, QWidget

from roofgui.model.scenario import Scenario
from roofgui.model.units import WHAT_IF_MAX, WHAT_IF_MIN
from roofgui.gui.document import WHAT_IF, ScenarioDocument
from roofgui.gui.widgets import Binding, QuantityEdit, bind, make_label


class WhatIfBox(QGroupBox):
    """The what-if multipliers and the derate box, bound to the document's scenario."""

    def __init__(self, doc: ScenarioDocument, parent: QWidget | None = None) -> None:
        super().__init__("What if", parent)
        self.doc = doc
        self.setToolTip("Scale every chip's figures to explore hardware that does not exist yet. "
                        "Multipliers other than 1 are shown in the legend.")
        g = QGridLayout(self)
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
        self.message = self.peak_edit.message
        self.reset_button = QToolButton()
        self.reset_button.setText("Reset")
        self.reset_button.setAccessibleName("Reset")
        self.reset_button.setToolTip("Set every what-if multiplier back to 1 and stop derating")
        self.reset_button.clicked.connect(self.reset)
        g.addWidget(self.reset_button, 0, 6)
        self.derate_box = QCheckBox("Derate to achievable peak")
        self.derate_box.setObjectName("derate")
        self.derate_box.setAccessibleName("Derate to achievable peak")
        self.derate_box.setToolTip("Use each chip's measured achievable fraction of peak (e.g. ~80 % "
                                   "on H100, ~95 % on TPUs) instead of the spec-sheet peak.")
        g.addWidget(self.derate_box, 2, 0, 1, 7)
        self.bindings = self._bind()

    def _bind(self) -> list[Binding]:
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

    def show_scenario(self, force: bool = True) -> None:
        """Show the scenario's multipliers (``force`` False: not over a field being edited)."""
        for b in self.bindings:
            b.show(self.doc.scenario, force)

    def reset(self) -> None:
        def change(s: Scenario) -> None:
            s.what_if.peak = s.what_if.hbm = s.what_if.link = 1.0
            s.derate = False

        self.doc.edit("Reset what-ifs", change, part=WHAT_IF)
