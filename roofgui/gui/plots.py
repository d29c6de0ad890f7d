"""The roofline and sweep plots.  They only draw: every coordinate comes from
:mod:`roofgui.model.plotdata` (log10 units on linear axes whose ticks read as
powers of ten), and every item is created once per chip / op and then updated
with ``setData`` — and only when its data or style actually changed.

The pieces they are built of are in :mod:`.plot_items` and :mod:`.plot_base`
(re-exported here for the modules that draw alike, such as the LLM sweep).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore
from PySide6.QtCore import Signal

from ..model import plotdata as pd
from .style import PlotStyle
from .plot_base import _LogPlot  # noqa: F401
from .plot_items import (LEGEND_CORNERS, LogAxis, _Curve, _face, _font, _halo,  # noqa: F401
                         _pen, _qcolor, _rect_samples, _Scatter, _set_anchor, _Spot,
                         _style_scatter, _text_px)

__all__ = ["LogAxis", "RooflinePlot", "SweepPlot", "LEGEND_CORNERS"]


# ---------------------------------------------------------------------------
# Roofline
# ---------------------------------------------------------------------------

class RooflinePlot(_LogPlot):
    """Log-log roofline: roofs per chip, op points, ridge marks and red/yellow/green regions.

    Introspection for tests: ``roof_curves[chip_id][key]`` (``"compute:bf16"``,
    ``"hbm"``, ``"link:ici"``), ``roof_labels[(chip_id, key)]`` (compute roofs),
    ``ridge_items[chip_id]``, ``ridge_labels[(chip_id, ridge_key)]``,
    ``points[(op_index, phase, chip_id)]``, ``op_labels[(op_index, phase)]``,
    ``region_items[kind]``, ``region_labels[kind]``, ``legend``, ``legend_corner``,
    ``geometry`` (the last :class:`~roofgui.model.plotdata.RooflineGeometry`).

    ``opClicked(op_index)`` is emitted when an op's point (or its link twin, or its
    label) is clicked with the left button; the window decides what that selects.
    """

    opClicked = Signal(int)

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        #: the op whose labels are emphasised (the one selected in the window), or None
        self.selected_op: int | None = None
        self.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._x_title = "Arithmetic intensity (FLOP/byte)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: pd.RooflineGeometry | None = None
        self.roof_curves: dict[str, dict[str, _Curve]] = {}
        self.roof_labels: dict[tuple[str, str], pg.TextItem] = {}
        self.ridge_items: dict[str, pg.ScatterPlotItem] = {}
        #: each ridge's dotted drop to the axis, by (chip, ridge key): its chip's guide line
        self.ridge_guides: dict[tuple[str, str], _Curve] = {}
        self.guide_lines: dict[str, _Curve] = {}
        self.ridge_labels: dict[tuple[str, str], pg.TextItem] = {}
        #: one scatter per op phase holds its point on every chip (an edit moves one op's
        #: points together: one setData, one item to repaint), and one its link twins
        self.point_groups: dict[tuple[int, str], _Scatter] = {}
        self.net_groups: dict[tuple[int, str], _Scatter] = {}
        #: each point, by (op, phase, chip), as a view into its op's scatter
        self.points: dict[tuple[int, str, str], _Spot] = {}
        #: hollow twins at (FLOPs per link byte, attainable) on the link roof, and connectors
        self.net_points: dict[tuple[int, str, str], _Spot] = {}
        self.net_links: dict[tuple[int, str, str], _Curve] = {}
        self._spot_views: dict[tuple[str, tuple[int, str, str]], _Spot] = {}
        self.op_labels: dict[tuple[int, str], pg.TextItem] = {}
        self.region_items: dict[str, pg.LinearRegionItem] = {}
        self.region_labels: dict[str, pg.TextItem] = {}
        for kind in pd.REGION_KINDS:
            item = pg.LinearRegionItem((0, 1), movable=False)
            item.setZValue(-100)
            item.setVisible(False)
            for ln in item.lines:
                ln.setPen(pg.mkPen(None))
                ln.setHoverPen(pg.mkPen(None))
            self.addItem(item, ignoreBounds=True)
            self.region_items[kind] = item
            self.region_labels[kind] = self._new_text(-90, (0.5, 0.0))
            self.region_labels[kind].setVisible(False)
        self._colours: dict[str, int] = {}
        self._roof_samples_key = None
        self._roof_samples = (np.empty(0), np.empty(0))
        self._apply_base_style()
        self._restyle_items()

    # -- data -------------------------------------------------------------------
    def update_from(self, scenario, evaluation, colours: Mapping[str, int] | None = None) -> None:
        """Show a scenario's evaluation; the view is kept (fitted on the first data).

        ``colours``: palette slots per chip id to keep (the window's, shared by its plots).
        """
        g = pd.roofline_geometry(scenario, evaluation,
                                 self._colours if colours is None else colours,
                                 n_colours=len(self.style.palette))
        self._colours = dict(g.colours)
        self.geometry = g
        self._fit = g.fit
        self._sync_items(g)
        self._restyle_items()
        self._rebuild_legend()
        if not self._has_view and (g.chips or g.points):
            view = getattr(getattr(scenario, "view", None), "roofline", None)
            self.set_view(view, layout=False)
        elif self._has_view and not self.user_view and not pd.view_covers(
                self.view_range(), *pd.key_points(g)):
            self.fit(layout=False)  # the user has not zoomed: follow the data when it leaves
        self._layout_annotations()

    def _sync_items(self, g: pd.RooflineGeometry) -> None:
        # -- roofs and ridge markers, per chip
        live_chips = {c.chip_id for c in g.chips}
        for cid in list(self.roof_curves):
            if cid not in live_chips:
                for k in list(self.roof_curves[cid]):
                    self._drop(self.roof_curves[cid], k, ("roof", cid))
                del self.roof_curves[cid]
                self._drop(self.ridge_items, cid, ("ridges",))
        for c in g.chips:
            curves = self.roof_curves.setdefault(c.chip_id, {})
            keys = {r.key for r in c.roofs}
            for k in list(curves):
                if k not in keys:
                    self._drop(curves, k, ("roof", c.chip_id))
            for r in c.roofs:
                item = curves.get(r.key)
                if item is None:
                    item = curves[r.key] = self._new_curve(-1 if r.kind == "link" else 0,
                                                            pool=("roof", c.chip_id, r.key))
                self._set_curve(("roof", c.chip_id, r.key), item, r.x, r.y)
            ridge = self.ridge_items.get(c.chip_id)
            if ridge is None:
                ridge = self.ridge_items[c.chip_id] = self._new_scatter(5, pool=("ridges", c.chip_id))
                self._style_ridges(c)
            self._set_spots(("ridges", c.chip_id), ridge, [r.x for r in c.ridges],
                            [r.y for r in c.ridges], [r.tooltip for r in c.ridges])
        # -- roof labels (compute roofs), ridge guides and labels
        live = {(c.chip_id, r.key) for c in g.chips for r in c.roofs if r.label}
        for k in list(self.roof_labels):
            if k not in live:
                self._drop(self.roof_labels, k, ("rooflabel",))
        for c in g.chips:
            for r in c.roofs:
                if r.label:
                    k = (c.chip_id, r.key)
                    if k not in self.roof_labels:
                        self.roof_labels[k] = self._new_text(25, (1.0, 1.0), pool=("rooflabel",) + k)
                    self._set_text(("rooflabel",) + k, self.roof_labels[k], r.label)
        live = {(c.chip_id, r.key) for c in g.chips for r in c.ridges}
        for k in list(self.ridge_labels):
            if k not in live:
                self._drop(self.ridge_labels, k, ("ridgelabel",))
        # a chip's ridge guides (dotted drops to the axis) are one line with gaps
        live_chips = {c.chip_id for c in g.chips if c.ridges}
        for cid in list(self.guide_lines):
            if cid not in live_chips:
                self._drop(self.guide_lines, cid, ("guides",))
        self.ridge_guides = {}
        for c in g.chips:
            if not c.ridges:
                continue
            line = self.guide_lines.get(c.chip_id)
            if line is None:
                line = self.guide_lines[c.chip_id] = self._new_curve(-20, bounds=False,
                                                                     pool=("guides", c.chip_id))
                line.setData([], [], connect="finite")
            xs = [v for r in c.ridges for v in (r.x, r.x, np.nan)][:-1]
            ys = [v for r in c.ridges for v in (r.y, -pd.LOG_INF, np.nan)][:-1]
            self._set_curve(("guides", c.chip_id), line, xs, ys)
            for r in c.ridges:
                k = (c.chip_id, r.key)
                self.ridge_guides[k] = line
                if k not in self.ridge_labels:
                    self.ridge_labels[k] = self._new_text(30, pool=("ridgelabel",) + k)
                self._set_text(("ridgelabel",) + k, self.ridge_labels[k], r.label)
                self.ridge_labels[k].setVisible(r.label_shown)  # a value two chips share: once
        # -- points (one scatter per op phase), link twins and their connectors
        self._sync_points(g)
        live_net = {p.key for p in g.points if p.net_x is not None}
        for k in list(self.net_links):
            if k not in live_net:
                self._drop(self.net_links, k, ("netlink",))
        for p in g.points:
            if p.net_x is None:
                continue
            if p.key not in self.net_links:
                self.net_links[p.key] = self._new_curve(-5, bounds=False, pool=("netlink",) + p.key)
            self._set_curve(("netlink",) + p.key, self.net_links[p.key], [p.x, p.net_x],
                            [p.y, p.y])
        live_labels = {lab.key for lab in g.labels}
        for k in list(self.op_labels):
            if k not in live_labels:
                self._drop(self.op_labels, k, ("oplabel",))
        for lab in g.labels:
            item = self.op_labels.get(lab.key)
            if item is None:
                item = self.op_labels[lab.key] = self._new_text(20, pool=("oplabel",) + lab.key)
            self._set_text(("oplabel",) + lab.key, item, lab.text)
            if self._changed(("data", "oplabel") + lab.key, (lab.x, lab.y, lab.side)):
                item.setPos(lab.x, lab.y)
                item.setAnchor((0.5, 1.3) if lab.side == "above" else (0.5, -0.3))
        # -- regions
        present = {r.kind: r for r in g.regions}
        for kind, item in self.region_items.items():
            item.setVisible(kind in present)  # extents: _layout_annotations, clipped to the view

    # -- style ------------------------------------------------------------------
    def _restyle_items(self) -> None:
        s = self.style
        g = self.geometry
        if self._changed(("style", "regions"), id(s)):
            for kind, item in self.region_items.items():
                brush = pg.mkBrush(_qcolor(s.region_colour(kind), s.region_alpha))
                item.setBrush(brush)
                item.setHoverBrush(brush)
                lab = self.region_labels[kind]
                lab.setColor(_qcolor(s.muted))
                lab.setFont(_font(s, s.annotation_font_pt * 0.95))
        if g is None:
            return
        ann = _font(s, s.annotation_font_pt)
        ann_bold = _font(s, s.annotation_font_pt, bold=True)
        for c in g.chips:
            col = s.colour(c.colour)
            for r in c.roofs:
                k = ("style", "roof", c.chip_id, r.key)
                if self._changed(k, (id(s), col)):
                    item = self.roof_curves[c.chip_id][r.key]
                    item.setPen(_pen(col, s.link_width, "dash") if r.kind == "link"
                                else _pen(col, s.roof_width))
                    if r.label:
                        lab = self.roof_labels[(c.chip_id, r.key)]
                        lab.setColor(_qcolor(col))
                        lab.setFont(ann)
                        lab.fill = _halo(s)
            self._style_ridges(c)
            if c.chip_id in self.guide_lines and self._changed(("style", "guides", c.chip_id),
                                                              (id(s), col)):
                self.guide_lines[c.chip_id].setPen(_pen(col, s.guide_width, "dot", alpha=0.75))
            for r in c.ridges:
                k = (c.chip_id, r.key)
                if self._changed(("style", "ridgelabel") + k, (id(s), col)):
                    self.ridge_labels[k].setColor(_qcolor(col))
                    self.ridge_labels[k].setFont(ann_bold)
                    self.ridge_labels[k].fill = _halo(s)
        self._sync_points(g)  # (their look is part of their data)
        for p in g.points:
            if p.key in self.net_links and self._changed(("style", "netlink") + p.key,
                                                         (id(s), p.colour)):
                self.net_links[p.key].setPen(_pen(s.colour(p.colour), s.guide_width, "dot",
                                                  alpha=0.8))
        for k, item in self.op_labels.items():
            on = k[0] == self.selected_op  # the op the results show: its label in bold, framed
            if self._changed(("style", "oplabel") + k, (id(s), on)):
                item.setColor(_qcolor(s.foreground))
                item.setFont(ann_bold if on else ann)
                item.fill = _halo(s)
                item.border = _pen(s.muted, 1.0) if on else pg.mkPen(None)
                item.update()

    def _style_ridges(self, c) -> None:
        s = self.style
        col = s.colour(c.colour)
        if self._changed(("style", "ridges", c.chip_id), (id(s), col)):
            _style_scatter(self.ridge_items[c.chip_id], _pen(s.marker_edge, s.marker_outline * 0.8),
                           pg.mkBrush(_qcolor(col)), s.ridge_size, "d")

    def _sync_points(self, g: pd.RooflineGeometry) -> None:
        """Each op phase's points (and link twins) as one scatter, spots styled per chip."""
        s = self.style
        groups: dict[tuple[int, str], list] = {}
        for p in g.points:
            groups.setdefault((p.op_index, p.phase), []).append(p)
        twins = {k: [p for p in ps if p.net_x is not None] for k, ps in groups.items()}
        twins = {k: ps for k, ps in twins.items() if ps}
        for store, want, prefix in ((self.point_groups, groups, "points"),
                                    (self.net_groups, twins, "twins")):
            for k in list(store):
                if k not in want:
                    self._drop(store, k, (prefix,))
            for k, ps in want.items():
                item = store.get(k)
                if item is None:
                    item = store[k] = self._new_scatter(10 if prefix == "points" else 9,
                                                        pool=(prefix,) + k)
                net = prefix == "twins"
                sig = (id(s), tuple((p.net_x if net else p.x, p.y, p.tooltip, p.symbol, p.colour)
                                    for p in ps))
                if not self._changed(("data", prefix) + k, sig):
                    continue
                cols = [s.colour(p.colour) for p in ps]
                if net:  # hollow, ringed in the chip's colour
                    look = dict(pen=[_pen(c, s.marker_outline * 1.4) for c in cols],
                                brush=pg.mkBrush(_face(s)), size=s.marker_size * 0.85)
                else:
                    look = dict(pen=_pen(s.marker_edge, s.marker_outline),
                                brush=[pg.mkBrush(_qcolor(c)) for c in cols], size=s.marker_size)
                item.setData(x=[p.net_x if net else p.x for p in ps], y=[p.y for p in ps],
                             data=[p.tooltip for p in ps], symbol=[p.symbol for p in ps], **look)
        # the views by (op, phase, chip): the same object for as long as the point is shown
        for name, store, want in (("point", self.point_groups, groups),
                                  ("twin", self.net_groups, twins)):
            views = {}
            for k, ps in want.items():
                for i, p in enumerate(ps):
                    v = self._spot_views.get((name, p.key))
                    if v is None:
                        v = self._spot_views[(name, p.key)] = _Spot(store[k], i)
                    v.item, v.index, v.live = store[k], i, True
                    views[p.key] = v
            for (n, key), v in self._spot_views.items():
                if n == name and key not in views:
                    v.live = False
            if name == "point":
                self.points = views
            else:
                self.net_points = views

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        # The marker key is fixed (network only with a link roof), so edits that
        # move points across a ridge never rebuild the legend.
        has_link = any(r.kind == "link" for c in g.chips for r in c.roofs)
        bounds = (["compute", "memory"] + (["network"] if has_link else [])) if g.points else []
        sig = (tuple((c.chip_id, c.label, c.colour) for c in g.chips), has_link, id(s))
        if sig == self._legend_signature:
            return
        self._legend_signature = sig
        entries = [(c.label, self._sample(pen=_pen(s.colour(c.colour), s.roof_width)))
                   for c in g.chips]
        if has_link:
            entries.append(("link roof", self._sample(pen=_pen(s.neutral, s.link_width, "dash"))))
        for b in bounds:
            entries.append((pd.BOUND_LABELS[b],
                            self._sample(symbol=pd.BOUND_SYMBOLS[b],
                                         brush=pg.mkBrush(_qcolor(s.neutral)),
                                         sym_pen=_pen(s.marker_edge, s.marker_outline),
                                         size=s.marker_size * 0.85)))
        self._legend_entries(entries)

    # -- annotations that follow the view ---------------------------------------------
    def _lay_out(self) -> None:
        g = self.geometry
        if g is None:
            self._place_legend()
            return
        s = self.style
        x0, x1, y0, y1 = self.view_range()
        vw, vh = max(self.vb.width(), 1.0), max(self.vb.height(), 1.0)
        px_x = vw / max(x1 - x0, 1e-9)  # pixels per decade
        px_y = vh / max(y1 - y0, 1e-9)
        char_w = _text_px(s, s.annotation_font_pt) * 0.5
        line_h = _text_px(s, s.annotation_font_pt)
        # ridge intensities along the bottom, stacked where they would overlap
        ridges = sorted(((c.chip_id, r) for c in g.chips for r in c.ridges if r.label_shown),
                        key=lambda t: t[1].x)
        widths = [(len(r.label) + 1.5) * char_w / px_x for _, r in ridges]
        rows = pd.stack_rows([r.x for _, r in ridges], widths)
        for (cid, r), row in zip(ridges, rows):
            lab = self.ridge_labels[(cid, r.key)]
            lab.setPos(r.x, y0)
            _set_anchor(lab, (0.5, 1.05 + 1.0 * row))
        # op labels beside their point: above or below (close neighbours alternate), else to
        # its right or left, wherever they cover the fewest points and earlier op labels and
        # stay in the view; centred ones slide inwards near the edges (an LLM prefill point)
        pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points
                                                if p.net_x is not None]
        psx, psy = self._to_scene([q[0] for q in pts], [q[1] for q in pts])
        vr = self.vb.sceneBoundingRect()
        bounds = (vr.left(), vr.top(), vr.right(), vr.bottom())
        placed_x: list[np.ndarray] = [psx]
        placed_y: list[np.ndarray] = [psy]
        for ol in g.labels:
            item = self.op_labels.get(ol.key)
            if item is None:
                continue
            br = item.textItem.boundingRect()
            w_px, h_px = br.width(), br.height()
            w = w_px / px_x
            edge = 4.0 / px_x
            ax = 0.5
            if w > 0:
                ax = min(max(ax, 1.0 - (x1 - edge - ol.x) / w), (ol.x - x0 - edge) / w)
                ax = min(max(ax, 0.0), 1.0)
            near, far = (1.3, -0.3) if ol.side == "above" else (-0.3, 1.3)
            side = s.marker_size * 0.8 / w_px if w_px > 0 else 0.0
            anchors = [(ax, near), (ax, far), (-side, 0.5), (1.0 + side, 0.5)]
            (lx,), (ly,) = self._to_scene([ol.x], [ol.y])
            best = pd.place_label(float(lx), float(ly), w_px, h_px, anchors,
                                  np.concatenate(placed_x), np.concatenate(placed_y), bounds,
                                  margin=s.marker_size * 0.5)
            anchor = anchors[best]
            if (item.anchor.x(), item.anchor.y()) != anchor:
                item.setAnchor(anchor)
            ((left, top, rw, rh),) = pd.label_rects(float(lx), float(ly), w_px, h_px, [anchor])
            gx, gy = _rect_samples(left, top, rw, rh)
            placed_x.append(gx)
            placed_y.append(gy)
        # compute-roof labels just above their roofs, spread apart: at the right edge,
        # or just after the ridge when an op's point sits where the label would go
        roofs = [(c.chip_id, r) for c in g.chips for r in c.roofs if r.label]
        ys_px = [(r.y[0] - y0) * px_y for _, r in roofs]
        spread = pd.spread_1d(ys_px, line_h * 1.02)
        pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points if p.net_x]
        sx, sy = self._to_scene([p[0] for p in pts], [p[1] for p in pts])
        pad = 3 * s.axis_width / px_x
        for (cid, r), y_px in zip(roofs, spread):
            lab = self.roof_labels[(cid, r.key)]
            w_px = lab.textItem.boundingRect().width()
            h_px = lab.textItem.boundingRect().height()
            y = y0 + y_px / px_y
            start = max(r.x[0], x0) + 2 * pad
            right = x1 - pad
            lab.setVisible(bool(right - start > w_px / px_x))
            cands = [(right - w_px / px_x, right, (1.0, 1.0)), (start, start + w_px / px_x, (0.0, 1.0))]
            rects = []
            for a_, b_, _ in cands:
                (l_, r_), (t_, _b) = self._to_scene([a_, b_], [y, y])
                rects.append((l_, t_ - h_px, r_ - l_, h_px))
            best = pd.least_covered(rects, sx, sy, margin=s.marker_size * 0.6)
            a_, b_, anchor = cands[best]
            lab.setPos(b_ if anchor[0] == 1.0 else a_, y)
            _set_anchor(lab, anchor)
        # bands: clipped to a little beyond the view (a band 1e60 wide is slow to fill)
        for reg in g.regions:
            ext = (max(reg.x0, x0 - 1.0), min(reg.x1, x1 + 1.0))
            if ext[0] >= ext[1]:
                ext = (reg.x0, reg.x0) if reg.x0 > x1 else (reg.x1, reg.x1)
            if self._changed(("data", "region", reg.kind), ext):
                self.region_items[reg.kind].setRegion(ext)
        # legend in the emptiest corner, then region names clear of it
        self._place_legend()
        self._layout_region_labels(x0, x1, y1, px_x)

    def _layout_region_labels(self, x0, x1, y1, px_x) -> None:
        g = self.geometry
        s = self.style
        names = pd.REGION_SHORT
        char_w = _text_px(s, s.annotation_font_pt) * 0.5
        legend_rect = self.legend.sceneBoundingRect() if self.legend.isVisible() else None
        for kind, lab in self.region_labels.items():
            reg = next((r for r in g.regions if r.kind == kind), None)
            visible = reg is not None and s.show_region_labels
            if visible:
                a, b = max(reg.x0, x0), min(reg.x1, x1)
                need = (len(names[kind]) * char_w + 16) / px_x
                visible = b - a > need
            if visible:
                self._set_text(("regionlabel", kind), lab, names[kind])
                if kind == "red":  # hug the edge where bandwidth stops binding
                    lab.setPos(b - 6 / px_x, y1)
                    _set_anchor(lab, (1.0, -0.15))
                elif kind == "green":
                    lab.setPos(a + 6 / px_x, y1)
                    _set_anchor(lab, (0.0, -0.15))
                else:
                    lab.setPos((a + b) / 2, y1)
                    _set_anchor(lab, (0.5, -0.15))
                lab.setVisible(True)
                if legend_rect is not None and lab.sceneBoundingRect().intersects(legend_rect):
                    visible = False
            lab.setVisible(visible)

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.geometry
        if g is None:
            return np.empty(0), np.empty(0)
        x0, x1, y0, y1 = self.view_range()
        # the roofs, sampled along their length: the same until the chips or the view change
        key = (x0, x1, y0, y1, tuple((r.key, r.x.tobytes(), r.y.tobytes())
                                     for c in g.chips for r in c.roofs))
        if key != self._roof_samples_key:
            step = (x1 - x0) / 150.0
            xs, ys = [np.empty(0)], [np.empty(0)]
            for c in g.chips:
                for r in c.roofs:
                    dx, dy = pd.densify(r.x.clip(x0 - 1, x1 + 1), r.y, step)
                    xs.append(dx)
                    ys.append(dy)
            self._roof_samples = (np.concatenate(xs), np.concatenate(ys))
            self._roof_samples_key = key
        xs = np.concatenate([self._roof_samples[0],
                             [p.x for p in g.points], [p.net_x for p in g.points if p.net_x]])
        ys = np.concatenate([self._roof_samples[1],
                             [p.y for p in g.points], [p.y for p in g.points if p.net_x]])
        sx, sy = self._to_scene(xs, ys)
        tx, ty = self._label_samples(list(self.op_labels.values())
                                     + list(self.roof_labels.values()))
        return np.concatenate([sx] + tx), np.concatenate([sy] + ty)

    def _bottom_labels(self) -> list:
        return list(self.ridge_labels.values())

    def set_selected_op(self, index: int | None) -> None:
        """Emphasise an op's labels (bold, framed): the op the window's results show."""
        if index == self.selected_op:
            return
        self.selected_op = index
        self._restyle_items()
        self._relayout.start()  # a bold label is wider: slide it inwards again if need be

    # -- clicks -----------------------------------------------------------------
    def op_at_scene(self, scene_pos) -> int | None:
        """The op whose point, link twin or label is at a scene position (None: none)."""
        for store in (self.point_groups, self.net_groups):
            for key, item in store.items():
                if self._scatter_hit(item, scene_pos):
                    return key[0]
        for key, item in self.op_labels.items():
            if item.isVisible() and item.sceneBoundingRect().contains(scene_pos):
                return key[0]
        return None

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != QtCore.Qt.MouseButton.LeftButton or event.double():
            return
        op = self.op_at_scene(event.scenePos())
        if op is not None:
            event.accept()
            self.opClicked.emit(op)

    def _on_mouse_moved(self, scene_pos) -> None:
        super()._on_mouse_moved(scene_pos)
        over = self.vb.sceneBoundingRect().contains(scene_pos) and \
            self.op_at_scene(scene_pos) is not None
        shape = QtCore.Qt.CursorShape.PointingHandCursor if over else QtCore.Qt.CursorShape.ArrowCursor
        if self.viewport().cursor().shape() != shape:
            self.viewport().setCursor(shape)

    # -- hover -----------------------------------------------------------------
    def _readout_text(self, x_log: float, y_log: float) -> str:
        return (f"I = {pd.tick_label_exact(x_log, 'plain')} FLOP/byte   "
                f"{pd.tick_label_exact(y_log, 'si')}FLOP/s")

    def tooltip_at_scene(self, scene_pos) -> str | None:
        hits = [h for item in list(self.point_groups.values()) + list(self.net_groups.values())
                for h in self._scatter_hit(item, scene_pos)]
        if hits:
            return "<br><hr>".join(h.data() for h in hits)
        tip = self._spot_tip(self.ridge_items.values(), scene_pos)
        g = self.geometry
        if tip is not None or g is None:
            return tip
        for c in g.chips:
            for r in c.roofs:
                if self._curve_hit(self.roof_curves[c.chip_id][r.key], scene_pos):
                    return r.tooltip
        return None


# ---------------------------------------------------------------------------
# Sweep
# ---------------------------------------------------------------------------

class SweepPlot(_LogPlot):
    """Attainable FLOP/s (or time per op) against a swept dimension; one curve per op × chip.

    Introspection: ``curves[(op_index, phase, chip_id)]``, ``crit_markers[key]``,
    ``crit_guides[key]``, ``crit_labels[key]``, ``legend``, ``geometry``.
    """

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        self._x_title = "B (batch, tokens)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: pd.SweepGeometry | None = None
        self.curves: dict[tuple[int, str, str], _Curve] = {}
        self.crit_markers: dict[tuple[int, str, str], pg.ScatterPlotItem] = {}
        self.crit_guides: dict[tuple[int, str, str], _Curve] = {}
        self.crit_labels: dict[tuple[int, str, str], pg.TextItem] = {}
        self._colours: dict[str, int] = {}
        self._apply_base_style()

    def update_from(self, scenario, curves, colours: Mapping[str, int] | None = None) -> None:
        """Show sweep curves; the view refits when the swept dimension or y quantity changes.

        ``colours``: palette slots per chip id to keep (pass the roofline's
        ``geometry.colours`` so a chip has one colour in both plots).
        """
        prev = dict(self._colours)
        prev.update({k: v for k, v in (colours or {}).items() if not k.startswith("op:")})
        g = pd.sweep_geometry(scenario, curves, prev, n_colours=len(self.style.palette))
        self._colours = {k: v for k, v in g.colours.items() if not k.startswith("op:")} \
            or self._colours
        old = self.geometry
        refit = (old is None or g.y_kind != old.y_kind or g.dim != old.dim
                 or (not self.user_view and g.fit != old.fit))
        self._adopt(g)
        live = {ln.key for ln in g.lines}
        for k in list(self.curves):
            if k not in live:
                self._drop(self.curves, k, ("curve",))
                self._drop(self.crit_markers, k, ("crit",))
                self._drop(self.crit_guides, k, ("critguide",))
                self._drop(self.crit_labels, k, ("critlabel",))
        for ln in g.lines:
            k = ln.key
            if k not in self.curves:
                self.curves[k] = self._new_curve(0, pool=("curve",) + k)
                self.crit_markers[k] = self._new_scatter(10, pool=("crit",) + k)
                self.crit_guides[k] = self._new_curve(-20, bounds=False, pool=("critguide",) + k)
                self.crit_labels[k] = self._new_text(20, pool=("critlabel",) + k)
            self._set_curve(("curve",) + k, self.curves[k], ln.draw_x, ln.draw_y)
            has = ln.crit_x is not None
            if has:
                self._set_spots(("crit",) + k, self.crit_markers[k], [ln.crit_x], [ln.crit_y],
                                [ln.tooltip])
                self._set_curve(("critguide",) + k, self.crit_guides[k], [ln.crit_x, ln.crit_x],
                                [ln.crit_y, -pd.LOG_INF])
                self._set_text(("critlabel",) + k, self.crit_labels[k], ln.crit_label)
            for item in (self.crit_markers[k], self.crit_guides[k]):
                item.setVisible(has)
            self.crit_labels[k].setVisible(has and ln.crit_label_shown)  # a repeated label: once
        self._restyle_items()
        self._rebuild_legend()
        if refit and g.lines:
            self.fit(layout=False)
        self._layout_annotations()

    def _restyle_items(self) -> None:
        s = self.style
        g = self.geometry
        if g is None:
            return
        face = _face(s)
        for ln in g.lines:
            col = s.colour(ln.colour)
            if not self._changed(("style", "curve") + ln.key, (id(s), col, ln.dash)):
                continue
            self.curves[ln.key].setPen(_pen(col, s.curve_width, ln.dash))
            m = self.crit_markers[ln.key]
            m.setSymbol("o")
            m.setSize(s.ridge_size * 1.3)
            m.setPen(_pen(col, s.marker_outline * 1.5))
            m.setBrush(pg.mkBrush(face))
            self.crit_guides[ln.key].setPen(_pen(col, s.guide_width, "dot", alpha=0.75))
            lab = self.crit_labels[ln.key]
            lab.setColor(_qcolor(col))
            lab.setFont(_font(s, s.annotation_font_pt, bold=True))
            lab.fill = _halo(s)

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        sig = (tuple((ln.key, ln.legend, ln.colour, ln.dash) for ln in g.lines), id(s))
        if sig == self._legend_signature:
            return
        self._legend_signature = sig
        chips = list(dict.fromkeys((ln.chip_label, ln.colour) for ln in g.lines))
        ops = list(dict.fromkeys((ln.op_label, ln.dash) for ln in g.lines))
        if len({c for c, _ in chips}) > 1 and len({o for o, _ in ops}) > 1:
            # several chips and several ops: colour = chip, line style = op, listed apart
            entries = [(name, self._sample(pen=_pen(s.colour(col), s.curve_width)))
                       for name, col in chips]
            entries += [(name, self._sample(pen=_pen(s.neutral, s.curve_width, dash)))
                        for name, dash in ops]
        else:
            entries = [(ln.legend, self._sample(pen=_pen(s.colour(ln.colour), s.curve_width,
                                                        ln.dash)))
                       for ln in g.lines]
        self._legend_entries(entries)

    def _lay_out(self) -> None:
        g = self.geometry
        if g is not None:
            s = self.style
            x0, x1, y0, y1 = self.view_range()
            px_x = max(self.vb.width(), 1.0) / max(x1 - x0, 1e-9)
            char_w = _text_px(s, s.annotation_font_pt) * 0.5
            lines = sorted((ln for ln in g.lines if ln.crit_x is not None and ln.crit_label_shown),
                           key=lambda ln: ln.crit_x)
            widths = [(len(ln.crit_label) + 1.5) * char_w / px_x for ln in lines]
            rows = pd.stack_rows([ln.crit_x for ln in lines], widths)
            for ln, row in zip(lines, rows):
                lab = self.crit_labels[ln.key]
                lab.setPos(ln.crit_x, y0)
                _set_anchor(lab, (0.5, 1.05 + 1.0 * row))
        self._place_legend()

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.geometry
        if g is None or not g.lines:
            return np.empty(0), np.empty(0)
        x0, x1, _, _ = self.view_range()
        dx, dy = pd.densify_many([ln.draw_x for ln in g.lines], [ln.draw_y for ln in g.lines],
                                 (x1 - x0) / 150.0)
        sx, sy = self._to_scene(dx, dy)
        tx, ty = self._label_samples(self.crit_labels.values())
        return np.concatenate([sx] + tx), np.concatenate([sy] + ty)

    def _bottom_labels(self) -> list:
        return list(self.crit_labels.values())

    def _readout_text(self, x_log: float, y_log: float) -> str:
        g = self.geometry
        kind = g.y_kind if g else "si"
        dim = g.dim if g else "x"
        unit = "FLOP/s" if kind == "si" else ""
        return (f"{dim} = {pd.tick_label_exact(x_log, 'plain')}   "
                f"{pd.tick_label_exact(y_log, kind)}{unit}")

    def tooltip_at_scene(self, scene_pos) -> str | None:
        tip = self._spot_tip(self.crit_markers.values(), scene_pos)
        g = self.geometry
        if tip is not None or g is None:
            return tip
        for ln in g.lines:
            if self._curve_hit(self.curves[ln.key], scene_pos):
                return ln.tooltip
        return None
