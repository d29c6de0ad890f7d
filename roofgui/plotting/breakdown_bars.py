"""The stacked time bars of an LLM step's breakdown: one horizontal bar per phase, one
segment per part (``count × T_lower``), each bar as long as its phase (a prefill step takes
hundreds of times a decode step: its time is written beside it), and a legend of the parts'
colours above them.

What is drawn comes from :mod:`roofgui.presentation.llm_breakdown`; this module places items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from roofgui.plotting.plot_items import make_font, make_pen, qcolor, show_hover_tip
from roofgui.model.units import format_time
from roofgui.presentation.llm_breakdown import PhaseBreakdown, legend_names
from roofgui.presentation.style import SCREEN_LIGHT, PlotStyle

#: The legend's name for the dashed tick at the step's own lower bound.
STEP_LEGEND = "the step, parts overlapped"
#: A segment narrower than this share of its bar carries no text (its tooltip names it).
LABEL_SHARE = 0.12


def text_on(colour: str) -> str:
    """Black or white, whichever reads on a ``#rrggbb`` fill."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#111111" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#FFFFFF"


def _unbroken(text: str) -> str:
    """Text a wrapped line keeps whole (no break at its spaces or after a slash)."""
    return text.replace(" ", "&nbsp;").replace("/", "/\u2060")


@dataclass(frozen=True)
class Segment:
    """One part's piece of a phase's bar: from ``start`` for ``width`` seconds."""

    phase: str
    name: str
    label: str
    start: float
    width: float
    colour: str
    tooltip: str


class BreakdownBars(QtWidgets.QWidget):
    """Stacked bars, one per phase, each as long as its phase (100 %): a segment's length is
    its part's share of the phase's ``Σ count × T_lower``, the phase's time is on its axis
    label, and a dashed tick marks the step's own lower bound (the parts overlapped).  The
    legend of the parts' colours is a wrapped line of text above the plot.
    For tests: ``segments`` (per phase, in order; ``width`` in seconds), ``bars`` (the
    BarGraphItem per phase, lengths in %), ``plot`` (the PlotWidget), ``legend`` (the
    QLabel) and ``legend_entries`` ((label, colour) pairs)."""

    def __init__(self, parent=None, style: PlotStyle | None = None) -> None:
        super().__init__(parent)
        self.style = style or SCREEN_LIGHT
        self.segments: dict[str, list[Segment]] = {}
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.legend_entries: list[tuple[str, str]] = []
        self.texts: list[pg.TextItem] = []
        self.hover_tip: str | None = None
        self.rows: list[str] = []   # the phase of each bar, bottom up
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.legend = QtWidgets.QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(QtCore.Qt.TextFormat.RichText)
        lay.addWidget(self.legend)
        self.plot = pg.PlotWidget()
        self.plot.setMinimumSize(200, 110)
        lay.addWidget(self.plot, 1)
        pi = self.plot.getPlotItem()
        pi.setMenuEnabled(False)
        pi.hideButtons()
        pi.setMouseEnabled(x=False, y=False)
        self.plot.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.set_style(self.style)

    def set_style(self, style: PlotStyle) -> None:
        self.style = style
        self.plot.setBackground(qcolor(style.background) if style.background != "transparent" else None)

    def set_phases(self, phases: Sequence[PhaseBreakdown]) -> None:
        """Show one bar per phase of ``phases`` (one chip's)."""
        self.plot.clear()
        self.segments, self.bars, self.texts = {}, {}, []
        s = self.style
        self.legend_entries = legend_names(phases)
        items = [f"<span style='color:{c}'>\u25a0</span>&nbsp;{_unbroken(label)}"
                 for label, c in self.legend_entries]
        if phases:
            items.append(f"<b>\u2506</b>&nbsp;{_unbroken(STEP_LEGEND)}")
        self.legend.setText(" &nbsp; ".join(items))
        pi = self.plot.getPlotItem()
        for name in ("left", "bottom"):
            ax = pi.getAxis(name)
            ax.setPen(make_pen(s.foreground, s.axis_width, alpha=0.6))
            ax.setTextPen(make_pen(s.foreground, s.axis_width))
            ax.setTickFont(make_font(s, s.tick_font_pt))
        pi.getAxis("bottom").setLabel("% of the phase (its parts one after another)",
                                      color=s.foreground)
        self.rows = [ph.phase for ph in reversed(phases)]  # (the first phase on top)
        for row, ph in enumerate(reversed(phases)):
            self._add_phase(ph, row)
        pi.getAxis("left").setTicks([[(row, f"{ph.phase.capitalize()}\n{format_time(ph.t_parts)}")
                                      for row, ph in enumerate(reversed(phases))], []])
        pi.setXRange(0.0, 100.0, padding=0.01)
        pi.setYRange(-0.5, max(len(phases), 1) - 0.5, padding=0.0)

    def _add_phase(self, ph: PhaseBreakdown, row: int) -> None:
        s = self.style
        total = ph.t_parts
        segs, at = [], 0.0
        for r in ph.rows:
            segs.append(Segment(ph.phase, r.name, r.label, at, r.t_lower, r.colour, r.tooltip))
            at += r.t_lower
        pct = 100.0 / total if total > 0 else 0.0
        bar = pg.BarGraphItem(x0=[g.start * pct for g in segs], y=[float(row)] * len(segs),
                              height=0.62, width=[g.width * pct for g in segs],
                              brushes=[pg.mkBrush(qcolor(g.colour)) for g in segs],
                              pens=[pg.mkPen(qcolor(s.background), width=1) for g in segs])
        self.plot.addItem(bar)
        if total > 0:
            x = min(ph.t_step / total, 1.0) * 100.0
            step = pg.PlotCurveItem([x, x], [row - 0.42, row + 0.42],
                                    pen=make_pen(s.foreground, s.guide_width * 2.0, "dash"))
            self.plot.addItem(step)
        for g in segs:
            if total > 0 and g.width / total >= LABEL_SHARE:
                t = pg.TextItem(f"{g.label} {g.width / total:.0%}", anchor=(0.5, 0.5),
                                color=qcolor(text_on(g.colour)))
                t.setFont(make_font(s, s.annotation_font_pt, bold=True))
                t.setPos((g.start + g.width / 2) * pct, float(row))
                self.plot.addItem(t)
                self.texts.append(t)
        self.segments[ph.phase] = segs
        self.bars[ph.phase] = bar

    def segment_at_scene(self, scene_pos) -> Segment | None:
        vb = self.plot.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        row = int(round(p.y()))
        if not (0 <= row < len(self.rows)) or abs(p.y() - row) > 0.31:
            return None
        segs = self.segments[self.rows[row]]
        total = sum(g.width for g in segs)
        if total <= 0:
            return None
        x = p.x() / 100.0 * total
        return next((g for g in segs if g.width > 0 and g.start <= x <= g.start + g.width), None)

    def on_mouse_moved(self, scene_pos) -> None:
        g = self.segment_at_scene(scene_pos)
        tip = g.tooltip if g is not None else None
        show_hover_tip(self, tip)

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(460, 240)
