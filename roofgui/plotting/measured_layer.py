"""Measured kernels on a :class:`~roofgui.plotting.plots.RooflinePlot`: one scatter of hollow
stars, each outlined in the colour of the chip it is placed on, with a hover tooltip.

It adds its own items through the plot's public API (``addItem``, ``legend``, the view
box's range and the scene's mouse-move signal) and never touches the plot's own items: the
plot's evaluation may redraw them at any time.  Kernels whose FLOPs or bytes are unknown
have no place on the roofline (the window's table still lists them).

While the user has not zoomed (the plot's ``user_view`` is False), the view is widened to
show every measured point: a kernel far under its roof is the point of importing it.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pyqtgraph as pg
from PySide6 import QtCore

from roofgui.plotting.overlay import Overlay
from roofgui.plotting.plot_items import (LegendSample, face_colour, spot_brush, spot_pen,
                                         text_px)
from roofgui.presentation.measured_match import PlacedKernel

#: The marker of a measured kernel (analytic ops are filled circles, squares, triangles).
SYMBOL = "star"
#: The legend's entry for measured kernels.
LEGEND_NAME = "measured kernel"


class MeasuredLayer(Overlay):
    """The measured kernels drawn on one roofline plot.

    ``item`` is the scatter (one spot per placed kernel, in the order given);
    ``placed`` the kernels it shows; ``hover_tip`` the tooltip the mouse last showed.
    """

    def __init__(self, plot) -> None:
        super().__init__(plot)
        self.item = pg.ScatterPlotItem(antialias=True)
        self.item.setZValue(12)  # over the analytic points
        plot.addItem(self.item, ignoreBounds=True)
        self.placed: list[PlacedKernel] = []
        self.sample: LegendSample | None = None
        self.sample_style = None  # (the style the legend's sample was drawn in)
        self.covering = QtCore.QTimer(self)  # (after the plot's own range change settles)
        self.covering.setSingleShot(True)
        self.covering.setInterval(0)
        self.covering.timeout.connect(self.cover)
        plot.vb.sigRangeChanged.connect(lambda *_: self.covering.start())

    # -- data ------------------------------------------------------------------------
    def set_kernels(self, placed: Sequence[PlacedKernel], colours: Mapping[str, str]) -> None:
        """Show ``placed`` (kernels without a place on the plot are left out), each
        outlined in ``colours[chip id]``."""
        self.placed = [p for p in placed if p.x is not None]
        s = self.plot.style
        pts = self.placed
        self.item.setData(
            x=[p.x for p in pts], y=[p.y for p in pts], data=[p.tooltip() for p in pts],
            symbol=SYMBOL, size=s.marker_size * 1.35, brush=spot_brush(face_colour(s), 0.55),
            pen=[spot_pen(colours.get(p.point.chip, s.neutral), s.marker_outline * 1.6)
                 for p in pts])
        self.item.setVisible(bool(pts))
        self.sync_legend()
        self.cover()

    def clear(self) -> None:
        """Show no measured kernel."""
        self.set_kernels([], {})

    def points(self) -> list[tuple[float, float]]:
        """(x, y) of every spot shown, in log10 units."""
        return [(p.x, p.y) for p in self.placed]

    # -- legend and view ---------------------------------------------------------------
    def sync_legend(self) -> None:
        """The legend's "measured kernel" entry while kernels are shown (the plot rebuilds
        its legend when its entries change: the entry is added back then)."""
        lg = self.plot.legend
        s = self.plot.style
        present = any(sample is self.sample for sample, _ in lg.items)
        if (present and self.placed and self.sample_style is s) or not (present or self.placed):
            return  # (as shown)
        if present:
            lg.removeItem(LEGEND_NAME)
        if self.placed:
            self.sample_style = s
            size = s.marker_size * 1.1
            line_px = text_px(s, s.legend_font_pt)
            self.sample = LegendSample(None, SYMBOL, spot_brush(face_colour(s)),
                                       spot_pen(s.neutral, s.marker_outline * 1.6),
                                       size, line_px * 2.0, max(line_px, size + 4))
            lg.addItem(self.sample, LEGEND_NAME)
            lg.setVisible(True)
        self.plot.place_legend()

    def cover_xy(self) -> list[tuple[float, float]]:
        return self.points()

    def tip_items(self) -> list:
        return [self.item]
