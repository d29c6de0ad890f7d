"""An LLM step's parts on a :class:`~roofgui.plotting.plots.RooflinePlot`: one scatter of small
diamonds, each filled in its part's colour and outlined in its chip's, with a hover tooltip
naming the part, its FLOPs, bytes, T_lower, bound and share.

Like :mod:`~roofgui.plotting.measured_layer` it adds its own items through the plot's public
API and never touches the plot's own.  Hidden until :meth:`BreakdownLayer.set_shown`.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from roofgui.plotting.plot_items import LegendSample, spot_brush, spot_pen, text_px
from roofgui.presentation.llm_breakdown import PartPoint

#: The marker of a part (ops are circles, squares, triangles; measured kernels stars).
SYMBOL = "d"
#: The legend's entry while parts are shown.
LEGEND_NAME = "LLM step part (hover for its name)"
#: Room around the part points when the view is widened to show them (log10 units).
MARGIN = 0.25


class BreakdownLayer(QtCore.QObject):
    """The parts of one LLM op drawn on a roofline plot.

    ``item`` is the scatter (one spot per point of ``points``, in order); ``shown`` whether
    the user asked for the parts; ``hover_tip`` the tooltip the mouse last showed.
    """

    def __init__(self, plot) -> None:
        super().__init__(plot)
        self.plot = plot
        self.item = pg.ScatterPlotItem(antialias=True)
        self.item.setZValue(11)  # over the op points' links, under measured stars
        self.item.setVisible(False)
        plot.addItem(self.item, ignoreBounds=True)
        self.points: list[PartPoint] = []
        self.shown = False
        self.hover_tip: str | None = None
        self.sample: LegendSample | None = None
        self.sample_style = None
        self.colours: dict[str, str] = {}
        self.covering = QtCore.QTimer(self)
        self.covering.setSingleShot(True)
        self.covering.setInterval(0)
        self.covering.timeout.connect(self.cover)
        plot.vb.sigRangeChanged.connect(lambda *_: self.covering.start())
        plot.scene().sigMouseMoved.connect(self.on_mouse_moved)

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

    def cover(self) -> None:
        """Widen the view to show every part, unless the user has zoomed."""
        pts = self.visible_points()
        if not pts or self.plot.user_view:
            return
        x0, x1, y0, y1 = self.plot.view_range()
        xs = [p.x for p in pts]
        ys = [p.y for p in pts]
        if min(xs) >= x0 and max(xs) <= x1 and min(ys) >= y0 and max(ys) <= y1:
            return
        self.plot.vb.setRange(xRange=(min(x0, min(xs) - MARGIN), max(x1, max(xs) + MARGIN)),
                              yRange=(min(y0, min(ys) - MARGIN), max(y1, max(ys) + MARGIN)),
                              padding=0.0)

    # -- hover -----------------------------------------------------------------------
    def tooltip_at_scene(self, scene_pos) -> str | None:
        """The tooltips of every part under a scene position (None: none)."""
        if not self.item.isVisible():
            return None
        hits = self.item.pointsAt(self.item.mapFromScene(scene_pos))
        return "<br><hr>".join(h.data() for h in hits) or None

    def tooltip_at(self, x_log: float, y_log: float) -> str | None:
        """The tooltip hovering at view point (log10 x, log10 y) shows, if any."""
        return self.tooltip_at_scene(self.plot.vb.mapViewToScene(QtCore.QPointF(x_log, y_log)))

    def on_mouse_moved(self, scene_pos) -> None:
        inside = self.plot.vb.sceneBoundingRect().contains(scene_pos)
        tip = self.tooltip_at_scene(scene_pos) if inside else None
        if tip == self.hover_tip:
            return
        self.hover_tip = tip
        if tip:
            own = self.plot.hover_tip
            QtWidgets.QToolTip.showText(QtGui.QCursor.pos(),
                                        f"{own}<br><hr>{tip}" if own else tip, self.plot)
        elif not self.plot.hover_tip:
            QtWidgets.QToolTip.hideText()
