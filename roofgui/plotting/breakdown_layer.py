"""An LLM step's parts on a :class:`~roofgui.plotting.plots.RooflinePlot`: one scatter of small
diamonds, each filled in its part's colour and outlined in its chip's, with a hover tooltip
naming the part, its FLOPs, bytes, T_lower, bound and share.

Like :mod:`~roofgui.plotting.measured_layer` it adds its own items through the plot's public
API and never touches the plot's own.  Hidden until :meth:`BreakdownLayer.set_shown`.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pyqtgraph as pg
from PySide6 import QtCore

from roofgui.plotting.overlay import Overlay
from roofgui.plotting.plot_items import LegendSample, spot_brush, spot_pen, text_px
from roofgui.presentation.llm_breakdown import PartPoint

#: The marker of a part (ops are circles, squares, triangles; measured kernels stars).
SYMBOL = "d"
#: The legend's entry while parts are shown.
LEGEND_NAME = "LLM step part (hover for its name)"


class BreakdownLayer(Overlay):
    """The parts of one LLM op drawn on a roofline plot.

    ``item`` is the scatter (one spot per point of ``points``, in order); ``shown`` whether
    the user asked for the parts; ``hover_tip`` the tooltip the mouse last showed.
    """

    def __init__(self, plot) -> None:
        super().__init__(plot)
        self.item = pg.ScatterPlotItem(antialias=True)
        self.item.setZValue(11)  # over the op points' links, under measured stars
        self.item.setVisible(False)
        plot.addItem(self.item, ignoreBounds=True)
        self.points: list[PartPoint] = []
        self.shown = False
        self.sample: LegendSample | None = None
        self.sample_style = None
        self.colours: dict[str, str] = {}
        self.covering = QtCore.QTimer(self)
        self.covering.setSingleShot(True)
        self.covering.setInterval(0)
        self.covering.timeout.connect(self.cover)
        plot.vb.sigRangeChanged.connect(lambda *_: self.covering.start())

    def set_points(self, points: Sequence[PartPoint], colours: Mapping[str, str]) -> None:
        """The parts to draw (``colours``: each chip's outline colour by chip id)."""
        self.points = list(points)
        self.colours = dict(colours)
        self.redraw()

    def set_shown(self, on: bool) -> None:
        self.shown = bool(on)
        self.redraw()

    def visible_points(self) -> list[PartPoint]:
        """The points drawn now (none while hidden)."""
        return self.points if self.shown else []

    def redraw(self) -> None:
        s = self.plot.style
        pts = self.visible_points()
        self.item.setData(
            x=[p.x for p in pts], y=[p.y for p in pts], data=[p.tooltip for p in pts],
            symbol=SYMBOL, size=s.marker_size * 1.0,
            brush=[spot_brush(p.colour) for p in pts],
            pen=[spot_pen(self.colours.get(p.chip_id, s.neutral), s.marker_outline * 1.4)
                 for p in pts])
        self.item.setVisible(bool(pts))
        self.sync_legend()
        self.cover()

    # -- legend and view ---------------------------------------------------------------
    def sync_legend(self) -> None:
        lg = self.plot.legend
        s = self.plot.style
        present = any(sample is self.sample for sample, _ in lg.items)
        want = bool(self.visible_points())
        if present and (not want or self.sample_style is not s):
            lg.removeItem(LEGEND_NAME)
            present = False
        if want and not present:
            self.sample_style = s
            size = s.marker_size * 0.85
            line_px = text_px(s, s.legend_font_pt)
            self.sample = LegendSample(None, SYMBOL, spot_brush(s.neutral, 0.6),
                                       spot_pen(s.neutral, s.marker_outline * 1.4),
                                       size, line_px * 2.0, max(line_px, size + 4))
            lg.addItem(self.sample, LEGEND_NAME)
            lg.setVisible(True)
        self.plot.place_legend()

    def cover_xy(self) -> list[tuple[float, float]]:
        return [(p.x, p.y) for p in self.visible_points()]

    def tip_items(self) -> list:
        return [self.item]
