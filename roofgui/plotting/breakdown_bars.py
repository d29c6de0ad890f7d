"""The stacked time bars of an LLM step's breakdown: one horizontal bar per phase, one
segment per part (``count × T_lower``), each phase on its own time axis (a prefill step
takes hundreds of times a decode step), and a legend of the parts' colours above them.

What is drawn comes from :mod:`roofgui.presentation.llm_breakdown`; this module places items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from roofgui.plotting.plot_items import LegendSample, make_font, make_pen, qcolor, text_px
from roofgui.presentation.llm_breakdown import PhaseBreakdown, legend_names
from roofgui.presentation.style import SCREEN_LIGHT, PlotStyle

#: A segment narrower than this share of its bar carries no text (its tooltip names it).
LABEL_SHARE = 0.09


def text_on(colour: str) -> str:
    """Black or white, whichever reads on a ``#rrggbb`` fill."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#111111" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#FFFFFF"


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


class BreakdownBars(pg.GraphicsLayoutWidget):
    """Stacked bars of time per phase.  For tests: ``segments`` (per phase, in order),
    ``bars`` (the BarGraphItem per phase), ``plots`` (the PlotItem per phase), ``legend``."""

    def __init__(self, parent=None, style: PlotStyle | None = None) -> None:
        super().__init__(parent)
        self.style = style or SCREEN_LIGHT
        self.segments: dict[str, list[Segment]] = {}
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.plots: dict[str, pg.PlotItem] = {}
        self.texts: list[pg.TextItem] = []
        self.legend = pg.LegendItem(colCount=5)
        self.hover_tip: str | None = None
        self.setMinimumHeight(160)
        self.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.setBackground(self.style.background)

    def set_style(self, style: PlotStyle) -> None:
        self.style = style
        self.setBackground(style.background)

    def set_phases(self, phases: Sequence[PhaseBreakdown]) -> None:
        """Show one bar per phase of ``phases`` (one chip's)."""
        self.clear()
        self.segments, self.bars, self.plots, self.texts = {}, {}, {}, []
        s = self.style
        self.legend = pg.LegendItem(colCount=5, labelTextColor=qcolor(s.foreground))
        self.legend.setLabelTextSize(f"{s.legend_font_pt}pt")
        self.addItem(self.legend, row=0, col=0)
        line_px = text_px(s, s.legend_font_pt)
        for label, colour in legend_names(phases):
            self.legend.addItem(LegendSample(fill=pg.mkBrush(qcolor(colour)), width=line_px * 1.6,
                                             height=line_px), label)
        for i, ph in enumerate(phases, start=1):
            self._add_phase(ph, i)

    def _add_phase(self, ph: PhaseBreakdown, row: int) -> None:
        s = self.style
        segs, at = [], 0.0
        for r in ph.rows:
            segs.append(Segment(ph.phase, r.name, r.label, at, r.t_lower, r.colour, r.tooltip))
            at += r.t_lower
        plot = self.addPlot(row=row, col=0)
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.setMouseEnabled(x=False, y=False)
        plot.hideAxis("left")
        plot.setTitle(ph.title, color=s.foreground, size=f"{s.label_font_pt}pt")
        ax = plot.getAxis("bottom")
        ax.setLabel("time", units="s")
        ax.setPen(make_pen(s.foreground, s.axis_width))
        ax.setTextPen(make_pen(s.foreground, s.axis_width))
        bar = pg.BarGraphItem(x0=[g.start for g in segs], y=[0.0] * len(segs), height=0.6,
                              width=[g.width for g in segs],
                              brushes=[pg.mkBrush(qcolor(g.colour)) for g in segs],
                              pens=[pg.mkPen(qcolor(s.background), width=1) for g in segs])
        plot.addItem(bar)
        step = pg.InfiniteLine(pos=ph.t_step, angle=90,
                               pen=make_pen(s.foreground, s.guide_width * 1.5, "dash"))
        step.setToolTip("the step's lower bound, its parts overlapped")
        plot.addItem(step)
        for g in segs:
            if at > 0 and g.width / at >= LABEL_SHARE:
                t = pg.TextItem(f"{g.label} {g.width / at:.0%}", anchor=(0.5, 0.5),
                                color=qcolor(text_on(g.colour)))
                t.setFont(make_font(s, s.annotation_font_pt, bold=True))
                t.setPos(g.start + g.width / 2, 0.0)
                plot.addItem(t)
                self.texts.append(t)
        plot.setXRange(0.0, max(at, ph.t_step) * 1.02 or 1.0, padding=0.0)
        plot.setYRange(-0.5, 0.5, padding=0.0)
        self.segments[ph.phase] = segs
        self.bars[ph.phase] = bar
        self.plots[ph.phase] = plot

    def segment_at_scene(self, scene_pos) -> Segment | None:
        for phase, plot in self.plots.items():
            vb = plot.getViewBox()
            if not vb.sceneBoundingRect().contains(scene_pos):
                continue
            p = vb.mapSceneToView(scene_pos)
            if abs(p.y()) > 0.3:
                return None
            return next((g for g in self.segments[phase]
                         if g.width > 0 and g.start <= p.x() <= g.start + g.width), None)
        return None

    def on_mouse_moved(self, scene_pos) -> None:
        g = self.segment_at_scene(scene_pos)
        tip = g.tooltip if g is not None else None
        if tip == self.hover_tip:
            return
        self.hover_tip = tip
        if tip:
            QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), tip, self)
        else:
            QtWidgets.QToolTip.hideText()

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(520, 260)
