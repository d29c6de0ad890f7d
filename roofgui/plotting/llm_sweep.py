"""The LLM step's sweep views: throughput and per-token latency against batch.

One chip per colour (the roofline's colours).  For each chip a solid curve
(perfect overlap: the step takes the largest of t_mem, t_compute and
t_network), a dashed one (no overlap: their sum) and a band between them,
up to the chip's **capacity wall**: the largest batch whose weights, KV cache
and activations fit in HBM.  Past the wall the curves fade and the plot is
hatched in the chip's colour; the wall is labelled with what overflows.

Everything drawn comes from :func:`roofgui.model.llm.llm_sweep_scenario`
(the numbers) and :func:`roofgui.presentation.llm_geometry.llm_sweep_geometry` (log10
coordinates, labels and tooltips); this module only places items.  Like
:mod:`roofgui.plotting.plots`, it draws log10 data on linear axes whose ticks read
as powers of ten, creates items once per chip and updates them with ``setData``.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from roofgui.model import llm
from roofgui.presentation import llm_geometry
from roofgui.presentation import plotdata as pd
from roofgui.plotting.placement import label_samples
from roofgui.plotting.plot_base import LogPlot
from roofgui.plotting.plot_items import (face_colour, make_font, make_pen, qcolor, set_line_pen,
                                         spot_brush, spot_pen, style_label, text_px)
from roofgui.presentation.style import PlotStyle

__all__ = ["LlmSweepPlot", "SWEEP_CHOICES", "is_llm_view"]

#: The sweep controls' plot choices for the LLM views: (text, ``SweepSpec.y``).
SWEEP_CHOICES = (("LLM: throughput (tokens/s)", "throughput"),
                 ("LLM: per-token latency (ms)", "latency"))

#: Hatch of the region past each chip's wall, cycled over chips (two chips cross-hatch).
_HATCHES = (QtCore.Qt.BrushStyle.BDiagPattern, QtCore.Qt.BrushStyle.FDiagPattern,
            QtCore.Qt.BrushStyle.VerPattern, QtCore.Qt.BrushStyle.HorPattern)


def is_llm_view(y: str) -> bool:
    """Whether a ``SweepSpec.y`` value is one of the LLM views (not attainable FLOP/s or time)."""
    return y in llm.SWEEP_VIEWS


class LlmSweepPlot(LogPlot):
    """Throughput or time per output token of one LLM op against batch, one colour per chip.

    Introspection for tests: ``geometry`` (the last
    :class:`~roofgui.model.llm_geometry.LlmSweepGeometry`), and per chip id ``curves_hi``,
    ``curves_lo`` (up to the wall), ``unfit_hi``, ``unfit_lo`` (past it), ``bands``,
    ``walls``, ``wall_labels``, ``regions`` (hatched, past the wall), ``markers`` (the
    op's own batch); ``batch_guide``, ``batch_label``, ``message``, ``legend``.
    """

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        self._x_title = "Batch B (concurrent requests)"
        self._y_title = "Throughput, all requests (tokens/s)"
        self.geometry: llm_geometry.LlmSweepGeometry | None = None
        self.curves_hi: dict[str, pg.PlotDataItem] = {}
        self.curves_lo: dict[str, pg.PlotDataItem] = {}
        self.unfit_hi: dict[str, pg.PlotDataItem] = {}
        self.unfit_lo: dict[str, pg.PlotDataItem] = {}
        self.bands: dict[str, pg.FillBetweenItem] = {}
        self.unfit_bands: dict[str, pg.FillBetweenItem] = {}
        self.walls: dict[str, pg.PlotDataItem] = {}
        self.wall_labels: dict[str, pg.TextItem] = {}
        self.regions: dict[str, pg.LinearRegionItem] = {}
        self.markers: dict[str, pg.ScatterPlotItem] = {}
        self._colours: dict[str, int] = {}
        #: the look each chip's items (and, under None, the batch's) were last given
        self._looks: dict = {}
        self.batch_guide = self._add_guide(-20)
        self.batch_label = self._add_label(20)
        self.message = pg.TextItem("", anchor=(0.5, 0.5))
        self.message.setZValue(30)
        self.addItem(self.message, ignoreBounds=True)
        self._apply_base_style()

    # -- data --------------------------------------------------------------------------
    def update_from(self, scenario, result: llm.LlmSweepResult,
                    colours: Mapping[str, int] | None = None) -> None:
        """Show ``result`` (from :func:`~roofgui.model.llm.llm_sweep_scenario`).

        ``colours``: palette slots by chip id (pass the roofline's, so each chip keeps
        its colour); by default a chip keeps the slot it had here.  The view refits
        when the view (throughput / latency) changes, or when the data leaves the
        fitted range and the user has not zoomed.
        """
        g = llm_geometry.llm_sweep_geometry(result, colours if colours is not None else self._colours,
                                   n_colours=len(self.style.palette))
        self._colours = dict(g.colours) or self._colours
        old = self.geometry
        refit = (old is None or g.view != old.view or (not old.lines and g.lines)
                 or (not self.user_view and g.fit != old.fit))
        self._adopt(g)
        live = {ln.chip_id for ln in g.lines}
        for cid in list(self.curves_hi):
            if cid not in live:
                self._drop_chip(cid)
        for ln in g.lines:
            cid = ln.chip_id
            if cid not in self.curves_hi:
                self._new_chip(cid)
            self.curves_hi[cid].setData(ln.x_fit, ln.hi_fit)
            self.curves_lo[cid].setData(ln.x_fit, ln.lo_fit)
            self.unfit_hi[cid].setData(ln.x_unfit, ln.hi_unfit)
            self.unfit_lo[cid].setData(ln.x_unfit, ln.lo_unfit)
            for band, n in ((self.bands[cid], ln.x_fit.size), (self.unfit_bands[cid], ln.x_unfit.size)):
                band.setVisible(n >= 2)
            self.wall_labels[cid].setText(ln.wall_label)
            has_marker = ln.marker is not None
            if has_marker:
                self.markers[cid].setData(x=[ln.marker[0]], y=[ln.marker[1]],
                                          data=[ln.marker_tooltip])
            self.markers[cid].setVisible(has_marker)
        has_batch = g.batch_x is not None
        self.batch_guide.setVisible(has_batch)
        self.batch_label.setVisible(has_batch)
        if has_batch:
            self.batch_label.setText(g.batch_label)
        self.message.setText(g.message)
        self.message.setVisible(bool(g.message))
        self._restyle_items()
        self._rebuild_legend()
        if refit:
            self.fit(layout=False)
        self.lay_out_annotations()

    def _new_chip(self, cid: str) -> None:
        self.curves_hi[cid] = self._add_curve(5)
        self.curves_lo[cid] = self._add_curve(4)
        self.unfit_hi[cid] = self._add_curve(2)
        self.unfit_lo[cid] = self._add_curve(1)
        for store, pair in ((self.bands, (self.curves_hi, self.curves_lo)),
                            (self.unfit_bands, (self.unfit_hi, self.unfit_lo))):
            band = pg.FillBetweenItem(pair[0][cid], pair[1][cid])
            band.setZValue(-10)
            self.addItem(band, ignoreBounds=True)
            store[cid] = band
        self.walls[cid] = self._add_guide(6)
        self.wall_labels[cid] = self._add_label(25, anchor=(0.0, 0.0))
        self.wall_labels[cid].setAngle(90)
        region = pg.LinearRegionItem((0, 1), movable=False)
        region.setZValue(-30)
        for line in region.lines:
            line.setPen(pg.mkPen(None))
            line.setHoverPen(pg.mkPen(None))
        self.addItem(region, ignoreBounds=True)
        self.regions[cid] = region
        self.markers[cid] = self._add_scatter(10)

    def _stores(self) -> tuple[dict, ...]:
        return (self.curves_hi, self.curves_lo, self.unfit_hi, self.unfit_lo, self.bands,
                self.unfit_bands, self.walls, self.wall_labels, self.regions, self.markers)

    def _drop_chip(self, cid: str) -> None:
        """Take a chip's items out of the plot."""
        for store in self._stores():
            self._remove(store, cid)
        self._looks.pop(cid, None)

    # -- style -------------------------------------------------------------------------
    def _restyle_items(self) -> None:
        s = self.style
        g = self.geometry
        if g is None:
            return
        for i, ln in enumerate(g.lines):
            col = s.colour(ln.colour)
            cid = ln.chip_id
            if self._looks.get(cid) == (s, col, i):
                continue
            self._looks[cid] = (s, col, i)
            self._style_chip(cid, col, _HATCHES[i % len(_HATCHES)])
        if self._looks.get(None) != s:
            self._looks[None] = s
            self.batch_guide.setPen(make_pen(s.neutral, s.guide_width, "dot", alpha=0.8))
            style_label(self.batch_label, s, s.muted, s.annotation_font_pt)
            self.message.setColor(qcolor(s.muted))
            self.message.setFont(make_font(s, s.label_font_pt))

    def _style_chip(self, cid: str, col: str, hatch) -> None:
        s = self.style
        set_line_pen(self.curves_hi[cid], make_pen(col, s.curve_width))
        self.curves_lo[cid].setPen(make_pen(col, s.curve_width * 0.6, "dash"))
        self.unfit_hi[cid].setPen(make_pen(col, s.curve_width * 0.8, alpha=0.35))
        self.unfit_lo[cid].setPen(make_pen(col, s.curve_width * 0.5, "dash", alpha=0.3))
        self.bands[cid].setBrush(pg.mkBrush(qcolor(col, 0.16)))
        self.bands[cid].setPen(pg.mkPen(None))
        self.unfit_bands[cid].setBrush(pg.mkBrush(qcolor(col, 0.06)))
        self.unfit_bands[cid].setPen(pg.mkPen(None))
        set_line_pen(self.walls[cid], make_pen(col, s.curve_width * 1.1))
        region = self.regions[cid]
        region.setBrush(QtGui.QBrush(qcolor(col, 0.35), hatch))
        region.setHoverBrush(region.brush)
        style_label(self.wall_labels[cid], s, col, s.annotation_font_pt, bold=True)
        m = self.markers[cid]
        m.setSymbol("o")
        m.setSize(s.marker_size * 0.9)
        m.setPen(spot_pen(col, s.marker_outline * 1.5))
        m.setBrush(spot_brush(face_colour(s)))

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        entries = [(ln.legend, dict(pen=make_pen(s.colour(ln.colour), s.curve_width),
                                            fill=pg.mkBrush(qcolor(s.colour(ln.colour), 0.16))))
                   for ln in g.lines]
        if g.lines:
            entries.append((g.hi_legend, dict(pen=make_pen(s.neutral, s.curve_width))))
            entries.append((g.lo_legend, dict(pen=make_pen(s.neutral, s.curve_width * 0.6,
                                                                   "dash"))))
            if any(ln.x_unfit.size or ln.wall_x is None for ln in g.lines):
                entries.append((g.unfit_legend, dict(
                    fill=QtGui.QBrush(qcolor(s.neutral, 0.6), _HATCHES[0]))))
        self._legend_entries(entries)

    # -- annotations that follow the view ------------------------------------------------
    def _lay_out(self) -> None:
        g = self.geometry
        if g is not None:
            s = self.style
            x0, x1, y0, y1 = self.view_range()
            vw = max(self.vb.width(), 1.0)
            px_x = vw / max(x1 - x0, 1e-9)
            line_h = text_px(s, s.annotation_font_pt)
            walls = [ln for ln in g.lines if ln.wall_x is not None]
            # wall labels run up each wall from the top, on its unfit side (on the other
            # side when the wall is near the right edge); spread apart where walls crowd
            across = max((self.wall_labels[ln.chip_id].textItem.boundingRect().height()
                          for ln in walls), default=line_h)
            xs_px = pd.spread_1d([(ln.wall_x - x0) * px_x for ln in walls], across * 1.05)
            for ln, x_px in zip(walls, xs_px):
                lab = self.wall_labels[ln.chip_id]
                w_px = lab.textItem.boundingRect().width()
                room_right = (x1 - ln.wall_x) * px_x
                lab.setPos(x0 + x_px / px_x, y1)
                # rotated 90° counter-clockwise: the anchor's x runs along the text (1: its
                # end, at the top), its y across it (0: the text lies right of the wall)
                lab.setAnchor((1.0 + 6.0 / max(w_px, 1.0), 0.0 if room_right > across * 1.2 else 1.0))
                lab.setVisible(x0 < ln.wall_x < x1)
                self.walls[ln.chip_id].setData(np.array([ln.wall_x, ln.wall_x]),
                                               np.array([y0 - 1.0, y1 + 1.0]))
                self.walls[ln.chip_id].setVisible(True)
            for ln in g.lines:
                if ln.wall_x is None:  # nothing fits: the whole axis is past the wall
                    self.walls[ln.chip_id].setVisible(False)
                    self.wall_labels[ln.chip_id].setVisible(False)
                    ext = (x0 - 1.0, x1 + 1.0)
                else:
                    ext = (max(ln.wall_x, x0 - 1.0), max(x1 + 1.0, ln.wall_x))
                self.regions[ln.chip_id].setRegion(ext)
                self.regions[ln.chip_id].setVisible(ln.wall_x is None or ln.wall_x < x1)
            if g.batch_x is not None:
                self.batch_guide.setData(np.array([g.batch_x, g.batch_x]),
                                         np.array([y0 - 1.0, y1 + 1.0]))
                self.batch_label.setPos(g.batch_x, y0)
                self.batch_label.setAnchor((0.5, 1.05))
            self.message.setPos((x0 + x1) / 2, (y0 + y1) / 2)
        self.place_legend()

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.geometry
        if g is None or not g.lines:
            return np.empty(0), np.empty(0)
        x0, x1, y0, y1 = self.view_range()
        xs, ys = [], []
        for ln in g.lines:
            for x, y in ((ln.x_fit, ln.hi_fit), (ln.x_fit, ln.lo_fit), (ln.x_unfit, ln.hi_unfit),
                         (ln.x_unfit, ln.lo_unfit)):
                if x.size:
                    step = max(1, x.size // 64)
                    dx, dy = pd.densify(x[::step], y[::step], (x1 - x0) / 150.0)
                    xs.append(dx)
                    ys.append(dy)
            if ln.wall_x is not None:
                xs.append(np.full(20, ln.wall_x))
                ys.append(np.linspace(y0, y1, 20))
        if not xs:
            return np.empty(0), np.empty(0)
        sx, sy = self.to_scene(np.concatenate(xs), np.concatenate(ys))
        tx, ty = label_samples(list(self.wall_labels.values()) + [self.batch_label])
        hx, hy = self._hatch_samples()
        return np.concatenate([sx] + tx + hx), np.concatenate([sy] + ty + hy)

    #: Spacing (pixels) of the sample points laid over the hatched regions: a legend over
    #: hatching counts as covering something, about as much as crossing a few curves.
    HATCH_SAMPLE_PX = 14.0

    def _hatch_samples(self) -> tuple[list, list]:
        """Scene sample points over the hatched region past each chip's wall (one grid each,
        so that where the hatching of several chips overlaps counts for each)."""
        g = self.geometry
        x0, x1, y0, y1 = self.view_range()
        xs, ys = [], []
        for ln in g.lines:
            if not self.regions[ln.chip_id].isVisible():
                continue
            left = x0 if ln.wall_x is None else min(max(ln.wall_x, x0), x1)
            (sl, sr), (st, sb) = (v for v in self.to_scene([left, x1], [y1, y0]))
            nx = int(abs(sr - sl) // self.HATCH_SAMPLE_PX) + 1
            ny = int(abs(sb - st) // self.HATCH_SAMPLE_PX) + 1
            if nx < 2 or ny < 2:
                continue
            gx, gy = np.meshgrid(np.linspace(sl, sr, nx), np.linspace(st, sb, ny))
            xs.append(gx.ravel())
            ys.append(gy.ravel())
        return xs, ys

    def _bottom_labels(self) -> list:
        return [self.batch_label]

    # -- hover ------------------------------------------------------------------------
    def _readout_text(self, x_log: float, y_log: float) -> str:
        g = self.geometry
        kind = g.y_kind if g else "si"
        unit = g.unit if g else ""
        return f"B = {pd.tick_label_exact(x_log, 'plain')}   {pd.tick_label_exact(y_log, kind)}{unit}"

    def tooltip_at_scene(self, scene_pos) -> str | None:
        tip = self._spot_tip(self.markers.values(), scene_pos)
        g = self.geometry
        if tip is not None or g is None:
            return tip
        for ln in g.lines:
            if ln.wall_x is not None and self._curve_hit(self.walls[ln.chip_id], scene_pos):
                return ln.wall_tooltip
        for ln in g.lines:
            cid = ln.chip_id
            for item in (self.curves_hi[cid], self.curves_lo[cid], self.unfit_hi[cid],
                         self.unfit_lo[cid]):
                if self._curve_hit(item, scene_pos):
                    return ln.tooltip
        return None
