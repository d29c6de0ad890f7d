"""The Frontier tab: the scenario's LLM step over batch and tensor-parallel degree, tokens/s
per chip against tokens/s per user (:func:`roofgui.model.pareto.pareto`), with editable
TTFT and TPOT limits.

The step is the selected LLM op (else the first): its model, p, d, dtypes and models of
t_mem and t_network; the chip is one of the scenario's checked chips.  The limits, the
most chips and the throughput counted are view preferences, kept in the settings
(``frontier/…``).  A limit that does not read as a time is shown in red under the controls
and the plot keeps the last good one.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QLineEdit, QSpinBox,
                               QToolButton, QVBoxLayout, QWidget)

from roofgui.model.errors import ModelError
from roofgui.model.pareto import pareto
from roofgui.plotting.frontier_plot import FrontierPlot
from roofgui.presentation.frontier import Y_TITLES, frontier_geometry, parse_seconds
from roofgui.presentation.llm_breakdown import breakdown_op_index

#: Largest tensor-parallel group offered.
MAX_CHIPS = 1024
DEFAULT_CHIPS = 8


def _labelled(row: QHBoxLayout, text: str, w: QWidget) -> None:
    lab = QLabel(text)
    lab.setBuddy(w)
    w.setAccessibleName(text.replace("&", ""))
    row.addWidget(lab)
    row.addWidget(w)


def _shrinkable(combo: QComboBox) -> None:
    """As wide as its longest item when there is room, down to 140 pixels when not."""
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.setMinimumWidth(140)


def _fit_button() -> QToolButton:
    b = QToolButton()
    b.setText("Fit")
    b.setAccessibleName("Fit")
    b.setToolTip("Reset the zoom to show every point (Ctrl+0)")
    b.setShortcut(QKeySequence("Ctrl+0"))
    b.setAutoRaise(True)
    return b


class FrontierPage(QWidget):
    """The controls (``chip_combo``, ``chips_spin``, ``link_combo``, ``ttft_edit``,
    ``tpot_edit``, ``throughput_combo``), ``error`` and ``summary`` labels and the ``plot``
    (:class:`~roofgui.plotting.frontier_plot.FrontierPlot`); ``result`` is the last
    :func:`~roofgui.model.pareto.pareto` result drawn, ``inputs`` what it was asked."""

    def __init__(self, window, parent=None) -> None:
        super().__init__(parent)
        self.w = window
        self.result: dict | None = None
        self.inputs: dict | None = None
        self.stale = True
        self.limits: dict[str, float | None] = {"ttft": None, "tpot": None}
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 0)
        lay.setSpacing(3)
        lay.addLayout(self._controls())
        self.error = QLabel()
        self.error.setStyleSheet("color: #C62828;")
        self.error.setWordWrap(True)
        self.error.hide()
        lay.addWidget(self.error)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self._plot: FrontierPlot | None = None  # (built when first drawn: see plot)
        self.fit_button.clicked.connect(lambda: self.plot.fit())
        self._restore()
        self.chips_spin.valueChanged.connect(lambda _v: self._changed())
        for combo in (self.chip_combo, self.link_combo, self.throughput_combo):
            combo.currentIndexChanged.connect(lambda _i: self._changed())
        for ed in (self.ttft_edit, self.tpot_edit):
            ed.editingFinished.connect(self._changed)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self.refresh)
        window.installEventFilter(self)  # (a palette change restyles the plot)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.w and event.type() in (QEvent.Type.PaletteChange,
                                              QEvent.Type.ApplicationPaletteChange):
            QTimer.singleShot(0, self.restyle)  # (after the window restyles its own plots)
        return False

    @property
    def plot(self) -> FrontierPlot:
        """The plot, built when first asked for (the tab's first showing): a window that
        never shows the Frontier tab never pays for a plot widget."""
        if self._plot is None:
            self._plot = FrontierPlot(style=self.w.roofline_plot.style)
            self._plot.setAccessibleName("Frontier plot")
            self.layout().addWidget(self._plot, 1)
        return self._plot

    def focus_chain(self) -> list[QWidget]:
        """The controls in reading order, then the plot once built (for Tab)."""
        return [self.chip_combo, self.chips_spin, self.link_combo, self.ttft_edit,
                self.tpot_edit, self.throughput_combo, self.fit_button,
                *([self._plot] if self._plot is not None else [])]

    def restyle(self) -> None:
        """The window's plot style (light or dark, as its palette)."""
        style = self.w.roofline_plot.style
        if self._plot is not None and self._plot.style != style:
            self._plot.set_style(style)

    def _controls(self) -> QVBoxLayout:
        """The inputs in two rows (the tab stays as narrow as the others): chip, most chips,
        link; the two limits, what to count, Fit."""
        rows = QVBoxLayout()
        row = QHBoxLayout()
        self.chip_combo = QComboBox()
        self.chip_combo.setToolTip("The chip (one of the checked chips)")
        _labelled(row, "Ch&ip:", self.chip_combo)
        self.chips_spin = QSpinBox()
        self.chips_spin.setRange(1, MAX_CHIPS)
        self.chips_spin.setToolTip("Tensor-parallel degrees 1, 2, 4, … up to this many chips")
        _labelled(row, "&Up to chips:", self.chips_spin)
        self.link_combo = QComboBox()
        self.link_combo.setToolTip("The link between the chips of a tensor-parallel group")
        _labelled(row, "&Link:", self.link_combo)
        row.addStretch(1)
        rows.addLayout(row)
        row = QHBoxLayout()
        self.ttft_edit = QLineEdit()
        self.tpot_edit = QLineEdit()
        for ed, what in ((self.ttft_edit, "time to first token"), (self.tpot_edit, "time per output token")):
            ed.setPlaceholderText("no limit")
            ed.setMaximumWidth(90)
            ed.setToolTip(f"Limit on the {what}, e.g. 2 s, 500 ms or 0.05 (empty: no limit)")
        _labelled(row, "TTFT ≤", self.ttft_edit)
        _labelled(row, "TPOT ≤", self.tpot_edit)
        self.throughput_combo = QComboBox()
        for key, title in Y_TITLES.items():
            self.throughput_combo.addItem(title.split(" per chip")[0] + " per chip", key)
        self.throughput_combo.setToolTip("Per chip: generated tokens only, or prompt + generated")
        _labelled(row, "C&ount:", self.throughput_combo)
        row.addStretch(1)
        self.fit_button = _fit_button()
        row.addWidget(self.fit_button)
        rows.addLayout(row)
        _shrinkable(self.throughput_combo)
        return rows

    # -- settings ------------------------------------------------------------------------
    def _settings(self):
        return self.w.controller.settings

    def _restore(self) -> None:
        s = self._settings()
        self.ttft_edit.setText(str(s.value("frontier/ttft", "")))
        self.tpot_edit.setText(str(s.value("frontier/tpot", "")))
        try:
            n = int(s.value("frontier/chips", DEFAULT_CHIPS))
        except (TypeError, ValueError):
            n = DEFAULT_CHIPS
        self.chips_spin.setValue(min(max(n, 1), MAX_CHIPS))
        at = self.throughput_combo.findData(str(s.value("frontier/throughput", "output")))
        self.throughput_combo.setCurrentIndex(max(at, 0))
        self._read_limits()

    def _save(self) -> None:
        s = self._settings()
        s.setValue("frontier/ttft", self.ttft_edit.text().strip())
        s.setValue("frontier/tpot", self.tpot_edit.text().strip())
        s.setValue("frontier/chips", self.chips_spin.value())
        s.setValue("frontier/throughput", self.throughput_combo.currentData())

    def _read_limits(self) -> list[str]:
        """Read both limits; a bad one keeps its last good value (its message returned)."""
        errors = []
        for key, ed, what in (("ttft", self.ttft_edit, "TTFT limit"), ("tpot", self.tpot_edit, "TPOT limit")):
            try:
                self.limits[key] = parse_seconds(ed.text(), what)
            except ValueError as e:
                errors.append(str(e))
        return errors

    # -- updating ------------------------------------------------------------------------
    def _changed(self) -> None:
        self.stale = True
        self.refresh()

    def mark_stale(self) -> None:
        """The scenario changed: draw again now if shown, else when shown."""
        self.stale = True
        if self.isVisible():
            self.timer.start()

    def sync_chips(self) -> None:
        """The chip combo offers the scenario's checked chips (the one chosen stays)."""
        ev = self.w.evaluation
        chips = list(ev.chips) if ev is not None else []
        keep = self.chip_combo.currentData()
        self.chip_combo.blockSignals(True)
        self.chip_combo.clear()
        for c in chips:
            self.chip_combo.addItem(c.label(), c.id)
        at = self.chip_combo.findData(keep) if keep is not None else -1
        self.chip_combo.setCurrentIndex(at if at >= 0 else (0 if chips else -1))
        self.chip_combo.blockSignals(False)
        _shrinkable(self.chip_combo)
        chip = next((c for c in chips if c.id == self.chip_combo.currentData()), None)
        links = ["scale-up"] + (sorted(chip.links) if chip is not None else [])
        keep = self.link_combo.currentData()
        self.link_combo.blockSignals(True)
        self.link_combo.clear()
        for name in links:
            self.link_combo.addItem(name, name)
        op_link = self._op_link()
        want = keep if keep in links else (op_link if op_link in links else "scale-up")
        self.link_combo.setCurrentIndex(self.link_combo.findData(want))
        self.link_combo.blockSignals(False)

    def _op_link(self) -> str | None:
        sc = self.w.doc.scenario
        i = breakdown_op_index(sc)
        shard = sc.ops[i].shard if i is not None else None
        return shard.link if shard is not None else None

    def refresh(self) -> None:
        """Work out the frontier for the controls' inputs and draw it."""
        self.timer.stop()
        errors = self._read_limits()
        self.error.setText("\n".join(errors))
        self.error.setVisible(bool(errors))
        self._save()
        if not self.stale:
            return
        self.stale = False
        self.sync_chips()
        self.result, self.inputs, message = self._compute()
        if self.result is None:
            self.summary.setText(message)
            self.plot.update_from(frontier_geometry(_empty(self.limits, self.throughput())))
            self.plot.message.setText(message)
            self.plot.message.setVisible(True)
            return
        g = frontier_geometry(self.result)
        self.summary.setText(self._heading() + g.summary)
        self.plot.update_from(g)

    def throughput(self) -> str:
        return self.throughput_combo.currentData() or "output"

    def _compute(self) -> tuple[dict | None, dict | None, str]:
        sc = self.w.doc.scenario
        i = breakdown_op_index(sc)
        if i is None:
            return None, None, "Add an LLM step to see its latency–throughput frontier."
        chip_id = self.chip_combo.currentData()
        chip = next((c for c in self.w.evaluation.chips if c.id == chip_id), None)
        if chip is None:
            return None, None, "Check a chip to see the frontier on it."
        inputs = {"op_index": i, "chip": chip_id, "chips": self.chips_spin.value(),
                  "link": self.link_combo.currentData(), "ttft": self.limits["ttft"],
                  "tpot": self.limits["tpot"], "throughput": self.throughput()}
        try:
            res = pareto(sc.ops[i], chip, inputs["chips"], inputs["link"], ttft=inputs["ttft"],
                         tpot=inputs["tpot"], throughput=inputs["throughput"])
        except ModelError as e:
            return None, None, f"{sc.ops[i].name}: {e}"
        if not res["points"]:
            return None, None, "; ".join(res["errors"]) or "No configuration to show."
        return res, inputs, ""

    def _heading(self) -> str:
        sc = self.w.doc.scenario
        op = sc.ops[self.inputs["op_index"]]
        notes = "".join(f" ({e})" for e in self.result["errors"])
        return (f"{op.name} on {self.chip_combo.currentText()}, TP 1…{self.inputs['chips']} over "
                f"{self.inputs['link']}{notes}. ")


def _empty(limits, throughput: str) -> dict:
    return {"points": [], "frontier": [], "ttft_limit": limits["ttft"],
            "tpot_limit": limits["tpot"], "throughput": throughput, "errors": []}
