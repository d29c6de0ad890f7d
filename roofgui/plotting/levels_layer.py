"""The hierarchical roofline on a :class:`~roofgui.plotting.plots.RooflinePlot`: a dash-dot
roof per on-chip memory level, labelled, and one marker per level for each tiled op (the
binding level's filled, the others hollow), joined by a dotted row, with a hover tooltip.

Like the measured-kernel layer it adds its own items through the plot's public API and never
touches the plot's items.  Geometry comes from :mod:`roofgui.presentation.levels_geom`.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from roofgui.plotting.overlay import Overlay
from roofgui.plotting.plot_items import face_colour, make_pen, spot_brush, spot_pen, style_label
from roofgui.presentation.levels_geom import LevelsGeometry

#: The marker of each level's point (the analytic op's own HBM point is drawn by the plot).
LEVEL_SYMBOLS = {"smem": "t1", "lds": "t1", "vmem": "t1", "tmem": "t1", "l2": "d",
                 "cmem": "h", "mall": "h", "hbm": "s"}


class LevelsLayer(Overlay):
    """Level roofs and points on one roofline plot.

    ``roofs[(chip_id, level)]`` and ``roof_labels[...]`` are the roofs' curves and labels;
    ``item`` the scatter of level points (``marks`` in its order); ``rows`` the dotted
    line joining each tiled op's points; ``hover_tip`` the tooltip the mouse last showed.
    """

    def __init__(self, plot) -> None:
        super().__init__(plot)
        self.geometry = LevelsGeometry()
        self.roofs: dict[tuple[str, str], pg.PlotCurveItem] = {}
        self.roof_labels: dict[tuple[str, str], pg.TextItem] = {}
        self.item = pg.ScatterPlotItem(antialias=True)
        self.item.setZValue(11)
        plot.addItem(self.item, ignoreBounds=True)
        self.rows = pg.PlotCurveItem(connect="finite")
        self.rows.setZValue(8)
        plot.addItem(self.rows, ignoreBounds=True)
        self.marks = ()
        #: measured kernels' points on the on-chip levels, and the rows joining each
        #: kernel's points to its star on the HBM roof
        self.measured_item = pg.ScatterPlotItem(antialias=True)
        self.measured_item.setZValue(12)
        plot.addItem(self.measured_item, ignoreBounds=True)
        self.measured_rows = pg.PlotCurveItem(connect="finite")
        self.measured_rows.setZValue(8)
        plot.addItem(self.measured_rows, ignoreBounds=True)
        self.measured = ()
        #: the style the layer last showed nothing in (nothing to show again: nothing to do)
        self._empty_style = None
        self._no_measured_style = None

    def set_geometry(self, g: LevelsGeometry) -> None:
        """Show ``g``'s roofs and points (and nothing else).  Nothing to show, as shown (no
        op tiled: every evaluation of most scenarios), sets nothing."""
        s = self.plot.style
        if not (g.roofs or g.marks or self.roofs or self.marks) and self._empty_style is s:
            self.geometry = g
            return
        self._empty_style = None if (g.roofs or g.marks) else s
        self.geometry = g
        keys = {(r.chip_id, r.level): r for r in g.roofs}
        for k in [k for k in self.roofs if k not in keys]:
            self.plot.removeItem(self.roofs.pop(k))
            self.plot.removeItem(self.roof_labels.pop(k))
        for k, r in keys.items():
            if k not in self.roofs:
                self.roofs[k] = pg.PlotCurveItem()
                self.roofs[k].setZValue(-2)
                self.plot.addItem(self.roofs[k], ignoreBounds=True)
                self.roof_labels[k] = pg.TextItem(anchor=(0.0, 0.0))  # (below-right of it)
                self.roof_labels[k].setZValue(24)
                self.plot.addItem(self.roof_labels[k], ignoreBounds=True)
            col = s.colour(r.colour)
            self.roofs[k].setData(r.x, r.y)
            self.roofs[k].setPen(make_pen(col, s.link_width, "dashdot"))
            lab = self.roof_labels[k]
            lab.setText(r.label)
            style_label(lab, s, col, s.annotation_font_pt * 0.9)
            lab.setPos(r.label_x, r.label_y)
            lab.setToolTip(r.label)
        self._set_marks(g)
        self.cover()

    def cover_xy(self) -> list[tuple[float, float]]:
        return [(m.x, m.y) for m in self.marks]

    def tip_items(self) -> list:
        return [self.item, self.measured_item]

    def _set_marks(self, g: LevelsGeometry) -> None:
        s = self.plot.style
        self.marks = g.marks
        ms = g.marks
        self.item.setData(
            x=[m.x for m in ms], y=[m.y for m in ms], data=[m.tooltip for m in ms],
            symbol=[LEVEL_SYMBOLS.get(m.level, "o") for m in ms], size=s.marker_size * 0.95,
            brush=[spot_brush(s.colour(m.colour)) if m.binding else spot_brush(face_colour(s))
                   for m in ms],
            pen=[spot_pen(s.colour(m.colour), s.marker_outline * 1.4) for m in ms])
        self.item.setVisible(bool(ms))
        xs: list[float] = []
        ys: list[float] = []
        rows: dict[tuple[int, str], list] = {}
        for m in ms:
            rows.setdefault((m.op_index, m.chip_id), []).append(m)
        for row in rows.values():
            xs += [min(m.x for m in row), max(m.x for m in row), np.nan]
            ys += [row[0].y, row[0].y, np.nan]
        self.rows.setData(np.array(xs, float), np.array(ys, float))
        self.rows.setPen(make_pen(s.neutral, s.guide_width, "dot", alpha=0.8))
        self.rows.setVisible(bool(ms))

    def clear(self) -> None:
        self.set_geometry(LevelsGeometry())
        self.set_measured(())

    def set_measured(self, marks) -> None:
        """Show measured kernels' level points (:class:`~.levels_geom.MeasuredMark`);
        none, as shown, sets nothing."""
        s = self.plot.style
        if not marks and not self.measured and self._no_measured_style is s:
            return
        self._no_measured_style = None if marks else s
        self.measured = tuple(marks)
        ms = self.measured
        self.measured_item.setData(
            x=[m.x for m in ms], y=[m.y for m in ms], data=[m.tooltip for m in ms],
            symbol=[LEVEL_SYMBOLS.get(m.level, "t1") for m in ms], size=s.marker_size * 1.05,
            brush=spot_brush(face_colour(s), 0.55),
            pen=[spot_pen(s.colour(m.colour), s.marker_outline * 1.6) for m in ms])
        self.measured_item.setVisible(bool(ms))
        xs: list[float] = []
        ys: list[float] = []
        for m in ms:
            if m.hbm_x is not None:
                xs += [m.x, m.hbm_x, np.nan]
                ys += [m.y, m.y, np.nan]
        self.measured_rows.setData(np.array(xs, float), np.array(ys, float))
        self.measured_rows.setPen(make_pen(s.neutral, s.guide_width, "dot", alpha=0.8))
        self.measured_rows.setVisible(bool(xs))
