"""The roofline and sweep plots.  They only draw: every coordinate comes from
:mod:`roofgui.presentation.plotdata` (log10 units on linear axes whose ticks read as
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

from roofgui.presentation import plotdata as pd
from roofgui.presentation.style import PlotStyle
from roofgui.plotting.plot_base import _covered, _LogPlot, _rect_bounds  # noqa: F401
from roofgui.plotting.plot_items import (_GRID_FX, LEGEND_CORNERS, LogAxis, _Canvas, _Curve, _face,  # noqa: F401
                         _face_colour, _font, _halo, _pen, _qcolor, _rect_samples, _Scatter,
                         _set_anchor, _set_pos, _Spot, _spot_brush, _spot_pen, _style_scatter,
                         _text_px)

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
    ``geometry`` (the last :class:`~roofgui.presentation.plotdata.RooflineGeometry`).

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
                ln.setVisible(False)  # (they draw nothing: not asked to on every repaint)
            self.addItem(item, ignoreBounds=True)
            self.region_items[kind] = item
            self.region_labels[kind] = self._new_text(-90, (0.5, 0.0))
            self.region_labels[kind].setVisible(False)
        self._colours: dict[str, int] = {}
        self._roof_samples_key = None
        self._roof_samples = (np.empty(0), np.empty(0))
        self._synced_chips: tuple | None = None  # the g.chips last synced (by identity)
        self._net_synced: dict[tuple[int, str, str], pd.Point] = {}
        self._points_synced: tuple | None = None  # (geometry, style) last synced
        #: each scatter's points and style as last set, by ("points" | "twins", op, phase)
        self._group_pts: dict[tuple, tuple] = {}
        self._members: tuple = ()  # which points each scatter holds, as of the views
        self._lay_keys: dict[str, tuple] = {}  # what each part of _lay_out last used
        self._lay_refs: tuple = ()
        self._roof_places: tuple = ([], None)  # the roof labels' places, and their bounds
        #: the roof samples in the scene: (key, x, y, the chips they are of)
        self._roof_scene: tuple = (None, np.empty(0), np.empty(0), None)
        #: on screen, the roofs and the ridge guides are drawn by a canvas each
        #: (:meth:`use_screen_caches`); None: every line paints itself (exports)
        self.canvases: dict[str, _Canvas] | None = None
        self._apply_base_style()
        self._restyle_items()

    def use_screen_caches(self) -> None:
        """The base class's caches, and the chips' roofs and ridge guides drawn through
        canvases that keep them as pictures (:class:`~roofgui.plotting.plot_items._Canvas`):
        an op's edit moves its points and labels, never a roof, so its repaint blits the
        roofs instead of stroking some thirty wide anti-aliased lines again; and the
        legend's corner chosen after the plot's paint (:meth:`defer_legend_placement`,
        the region names following it when it moves: :meth:`_legend_moved`).  For the
        window's plot, never for an export's."""
        super().use_screen_caches()
        self.defer_legend_placement()
        if self.canvases is None:
            # one z each: the ridge guides (-20) under the op's link connectors (-5), the
            # link roofs (-1) and the other roofs (0) above them and under the ridges (5)
            self.canvases = {"guides": _Canvas(self.vb, -20), "roofs": _Canvas(self.vb, 0)}
            self._sync_canvases()

    def _sync_canvases(self) -> None:
        """The canvases' lines, in the order Qt would draw them (by z value, then as
        they were added), each in its chip's group."""
        if self.canvases is None:
            return
        order = {id(it): i for i, it in enumerate(self.vb.childGroup.childItems())}
        roofs = [(cid, item) for cid, curves in self.roof_curves.items()
                 for item in curves.values()]
        roofs.sort(key=lambda m: (m[1].zValue(), order.get(id(m[1]), 0)))
        self.canvases["roofs"].set_members(roofs)
        self.canvases["guides"].set_members(sorted(
            self.guide_lines.items(), key=lambda m: order.get(id(m[1]), 0)))

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
        # The chips' part of the geometry comes back as the very same objects while the
        # chips, their settings and the roofs' extent stay (most edits move points only)
        if g.chips is not self._synced_chips:
            self._sync_chips(g)
            self._sync_canvases()
            self._synced_chips = g.chips
        # -- points (one scatter per op phase), link twins and their connectors
        self._sync_points(g)
        live_net = {p.key for p in g.points if p.net_x is not None}
        for k in list(self.net_links):
            if k not in live_net:
                self._drop(self.net_links, k, ("netlink",))
        for p in g.points:
            if p.net_x is None or self._net_synced.get(p.key) is p:
                continue  # (the same point object: the same connector)
            if p.key not in self.net_links:
                self.net_links[p.key] = self._new_curve(-5, bounds=False, pool=("netlink",) + p.key)
            self._set_curve(("netlink",) + p.key, self.net_links[p.key], [p.x, p.net_x],
                            [p.y, p.y])
        self._net_synced = {p.key: p for p in g.points if p.net_x is not None}
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
                _set_pos(item, lab.x, lab.y)
                _set_anchor(item, (0.5, 1.3) if lab.side == "above" else (0.5, -0.3))
        # -- regions
        present = {r.kind: r for r in g.regions}
        for kind, item in self.region_items.items():
            item.setVisible(kind in present)  # extents: _layout_annotations, clipped to the view

    def _sync_chips(self, g: pd.RooflineGeometry) -> None:
        """Roofs, ridge markers, roof and ridge labels and ridge guides, per chip."""
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
                # (a pooled line was cleared just now: its last data must be set again)
                self._sig.pop(("data", "guides", c.chip_id), None)
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
        # the chips' items keep their look while the chips' geometry is the same objects
        # (set_style drops this note with the other "style" ones)
        prev = self._sig.get(("style", "chips"))
        if prev is None or prev[0] is not g.chips or prev[1] is not s:
            self._sig[("style", "chips")] = (g.chips, s)
            self._restyle_chips(g, ann, ann_bold)
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

    def _restyle_chips(self, g: pd.RooflineGeometry, ann, ann_bold) -> None:
        s = self.style
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

    def _style_ridges(self, c) -> None:
        s = self.style
        col = s.colour(c.colour)
        if self._changed(("style", "ridges", c.chip_id), (id(s), col)):
            _style_scatter(self.ridge_items[c.chip_id], _pen(s.marker_edge, s.marker_outline * 0.8),
                           pg.mkBrush(_qcolor(col)), s.ridge_size, "d")

    def _sync_points(self, g: pd.RooflineGeometry) -> None:
        """Each op phase's points (and link twins) as one scatter, spots styled per chip."""
        s = self.style
        if self._points_synced is not None and self._points_synced[0] is g \
                and self._points_synced[1] is s:
            return  # (_restyle_items asks again after update_from: nothing new)
        self._points_synced = (g, s)
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
                # the same point objects (an op not edited): its scatter is as it was
                prev = self._group_pts.get((prefix,) + k)
                if prev is not None and prev[0] is s and len(prev[1]) == len(ps) \
                        and all(a is b for a, b in zip(prev[1], ps)):
                    continue
                self._group_pts[(prefix,) + k] = (s, tuple(ps))
                net = prefix == "twins"
                sig = (id(s), tuple((p.net_x if net else p.x, p.y, p.tooltip, p.symbol, p.colour)
                                    for p in ps))
                if not self._changed(("data", prefix) + k, sig):
                    continue
                cols = [s.colour(p.colour) for p in ps]
                # shared pens and brushes: the scatter's symbol atlas then already holds
                # these looks, and moving a point renders nothing (see _spot_pen)
                if net:  # hollow, ringed in the chip's colour
                    look = dict(pen=[_spot_pen(c, s.marker_outline * 1.4) for c in cols],
                                brush=_spot_brush(_face_colour(s)), size=s.marker_size * 0.85)
                else:
                    look = dict(pen=_spot_pen(s.marker_edge, s.marker_outline),
                                brush=[_spot_brush(c) for c in cols], size=s.marker_size)
                item.set_spots([p.net_x if net else p.x for p in ps], [p.y for p in ps],
                               [p.tooltip for p in ps], [p.symbol for p in ps], **look)
        # the views by (op, phase, chip): the same object for as long as the point is shown
        # (the same points in the same scatters as last time: the same views)
        members = tuple(tuple((k, tuple(p.key for p in ps)) for k, ps in want.items())
                        for want in (groups, twins))
        if members == self._members:
            return
        self._members = members
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
        m = self._scene_matrix()  # (one view transform for the whole layout)
        # Each part is redone only when what it depends on changed: an edit moves points,
        # which the ridge labels, the roof labels' candidate places and the region labels
        # do not depend on.  Keys hold ids; _lay_refs keeps those objects alive.
        view = (x0, x1, y0, y1, vw, vh, m, id(s), id(g.chips))
        keys = self._lay_keys
        # the objects whose ids the keys hold, kept alive so that no other takes their id
        held, self._lay_refs = self._lay_refs, (g, s)  # noqa: F841 (the old ones: until now)
        if keys.get("ridges") != view:
            keys["ridges"] = view
            self._layout_ridge_labels(g, x0, y0, px_x)
            self._clearance = {}  # the legend's lift above them (_bottom_clearance)
        self._layout_op_labels(g, x0, x1, px_x, m)
        self._layout_roof_labels(g, view, x0, x1, y0, px_x, px_y, m)
        # bands: clipped to a little beyond the view (a band 1e60 wide is slow to fill)
        for reg in g.regions:
            ext = (max(reg.x0, x0 - 1.0), min(reg.x1, x1 + 1.0))
            if ext[0] >= ext[1]:
                ext = (reg.x0, reg.x0) if reg.x0 > x1 else (reg.x1, reg.x1)
            if self._changed(("data", "region", reg.kind), ext):
                self.region_items[reg.kind].setRegion(ext)
        # legend in the emptiest corner (on screen: in its corner, the choice after the
        # paint), then region names clear of it
        self._place_legend()
        self._lay_out_regions(view, x0, x1, y1, px_x)

    def _lay_out_regions(self, view: tuple, x0: float, x1: float, y1: float,
                         px_x: float) -> None:
        """The region names, clear of the legend where it now is (again only when the view,
        the regions or the legend's rectangle changed)."""
        g, s = self.geometry, self.style
        lg = self.legend
        r = lg.sceneBoundingRect() if lg.isVisible() else None
        key = view + (id(g.regions), s.show_region_labels,
                      None if r is None else (r.x(), r.y(), r.width(), r.height()))
        if self._lay_keys.get("regions") != key:
            # (each run shows a hidden label to test it against the legend: a repaint)
            self._lay_keys["regions"] = key
            self._layout_region_labels(x0, x1, y1, px_x)

    def _legend_moved(self) -> None:
        """The legend's corner chosen after the paint moved it: the region names again."""
        g = self.geometry
        view = self._lay_keys.get("ridges")
        if g is None or view is None:
            return
        x0, x1, y0, y1 = self.view_range()
        px_x = max(self.vb.width(), 1.0) / max(x1 - x0, 1e-9)
        self._lay_out_regions(view, x0, x1, y1, px_x)

    def _layout_ridge_labels(self, g: pd.RooflineGeometry, x0: float, y0: float,
                             px_x: float) -> None:
        """Ridge intensities along the bottom, stacked where they would overlap."""
        s = self.style
        char_w = _text_px(s, s.annotation_font_pt) * 0.5
        ridges = sorted(((c.chip_id, r) for c in g.chips for r in c.ridges if r.label_shown),
                        key=lambda t: t[1].x)
        widths = [(len(r.label) + 1.5) * char_w / px_x for _, r in ridges]
        rows = pd.stack_rows([r.x for _, r in ridges], widths)
        for (cid, r), row in zip(ridges, rows):
            lab = self.ridge_labels[(cid, r.key)]
            _set_pos(lab, r.x, y0)
            _set_anchor(lab, (0.5, 1.05 + 1.0 * row))

    def _layout_op_labels(self, g: pd.RooflineGeometry, x0: float, x1: float, px_x: float,
                          m: tuple) -> None:
        """Op labels beside their point: above or below (close neighbours alternate), else
        to its right or left, wherever they cover the fewest points and earlier op labels
        and stay in the view; centred ones slide inwards near the edges (an LLM prefill
        point)."""
        s = self.style
        pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points
                                                if p.net_x is not None]
        psx, psy = self._to_scene([q[0] for q in pts], [q[1] for q in pts], m)
        vr = self.vb.sceneBoundingRect()
        bounds = (vr.left(), vr.top(), vr.right(), vr.bottom())
        # what a label may not cover: the points, then each label placed (its rectangle
        # sampled), as rows x and y of one array made once
        n = len(pts)
        placed = np.empty((2, n + _GRID_FX.size * len(g.labels)))
        placed[0, :n], placed[1, :n] = psx, psy
        margin = s.marker_size * 0.5
        lxs, lys = self._to_scene([ol.x for ol in g.labels], [ol.y for ol in g.labels], m)
        for ol, lx, ly in zip(g.labels, lxs.tolist(), lys.tolist()):
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
            # pd.place_label, its anchors' rectangles counted in one pass
            rects = pd.label_rects(lx, ly, w_px, h_px, anchors)
            ok = [i for i, (l, t, rw, rh) in enumerate(rects)
                  if l >= bounds[0] and t >= bounds[1] and l + rw <= bounds[2]
                  and t + rh <= bounds[3]]
            best = 0
            if ok:  # the fewest points covered, not counting its own (at the pin)
                xy = placed[:, :n]
                lo = np.array([(rects[i][0] - margin, rects[i][1] - margin) for i in ok])
                hi = np.array([(rects[i][0] + rects[i][2] + margin,
                                rects[i][1] + rects[i][3] + margin) for i in ok])
                inside = ((xy >= lo[:, :, None]) & (xy <= hi[:, :, None])).all(axis=1)
                other = ~(np.abs(xy - np.array([[lx], [ly]])) < 0.5).all(axis=0)
                best = ok[int(np.argmin((inside & other).sum(axis=1)))]  # (ties: the first)
            anchor = anchors[best]
            _set_anchor(item, anchor)
            left, top, rw, rh = rects[best]
            k = n + _GRID_FX.size
            placed[0, n:k], placed[1, n:k] = _rect_samples(left, top, rw, rh)
            n = k

    def _layout_roof_labels(self, g: pd.RooflineGeometry, view: tuple, x0: float, x1: float,
                            y0: float, px_x: float, px_y: float, m: tuple) -> None:
        """Compute-roof labels just above their roofs, spread apart: at the right edge, or
        just after the ridge when an op's point sits where the label would go."""
        s = self.style
        roofs = [(c.chip_id, r) for c in g.chips for r in c.roofs if r.label]
        labs = [self.roof_labels[(cid, r.key)] for cid, r in roofs]
        sizes = [lab.textItem.boundingRect() for lab in labs]
        sizes = tuple((b.width(), b.height()) for b in sizes)
        key = view + (sizes,)
        if self._lay_keys.get("roofs") != key:
            # where each label may go (right edge or after the ridge), in scene rectangles:
            # the same until the chips, the view or the labels' sizes change
            self._lay_keys["roofs"] = key
            line_h = _text_px(s, s.annotation_font_pt)
            spread = pd.spread_1d([(r.y[0] - y0) * px_y for _, r in roofs], line_h * 1.02)
            pad = 3 * s.axis_width / px_x
            places = []
            for (cid, r), y_px, (w_px, h_px) in zip(roofs, spread, sizes):
                y = y0 + y_px / px_y
                start = max(r.x[0], x0) + 2 * pad
                right = x1 - pad
                cands = [(right - w_px / px_x, right, (1.0, 1.0)),
                         (start, start + w_px / px_x, (0.0, 1.0))]
                (l0, r0, l1, r1), (t0, _, t1, _) = self._to_scene(
                    [c[i] for c in cands for i in (0, 1)], [y] * 4, m)
                rects = [(l0, t0 - h_px, r0 - l0, h_px), (l1, t1 - h_px, r1 - l1, h_px)]
                places.append((bool(right - start > w_px / px_x), y, cands, rects))
            # every label's two rectangles, to count the points in all at once
            self._roof_places = places, _rect_bounds([r for pl in places for r in pl[3]],
                                                     s.marker_size * 0.6)
        places, bounds = self._roof_places
        pts = [(p.x, p.y) for p in g.points] + [(p.net_x, p.y) for p in g.points if p.net_x]
        sx, sy = self._to_scene([p[0] for p in pts], [p[1] for p in pts], m)
        counts = _covered(bounds, sx, sy).tolist() if places else []
        for i, (lab, (shown, y, cands, _)) in enumerate(zip(labs, places)):
            if lab.isVisible() != shown:
                lab.setVisible(shown)
            # the fewest points covered; a tie: the right edge (pd.least_covered's order)
            a_, b_, anchor = cands[0 if counts[2 * i] <= counts[2 * i + 1] else 1]
            _set_pos(lab, b_ if anchor[0] == 1.0 else a_, y)
            _set_anchor(lab, anchor)

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
        parts = self._obstacle_parts()
        return (np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]))

    def _obstacle_parts(self) -> list[tuple]:
        """What the legend should not cover: the roofs sampled along their length (the
        same while the chips and the view are: keyed), then the points and the labels."""
        g = self.geometry
        if g is None:
            return [(None, np.empty(0), np.empty(0))]
        x0, x1, y0, y1 = self.view_range()
        prev = self._roof_samples_key
        if prev is None or prev[0] != (x0, x1, y0, y1) or prev[1] is not g.chips:
            # (the same chips objects: the same roofs, without comparing their arrays)
            key = (x0, x1, y0, y1, tuple((r.key, r.x.tobytes(), r.y.tobytes())
                                         for c in g.chips for r in c.roofs))
            if prev is None or key != prev[2]:
                step = (x1 - x0) / 150.0
                xs, ys = [np.empty(0)], [np.empty(0)]
                for c in g.chips:
                    for r in c.roofs:
                        dx, dy = pd.densify(r.x.clip(x0 - 1, x1 + 1), r.y, step)
                        xs.append(dx)
                        ys.append(dy)
                self._roof_samples = (np.concatenate(xs), np.concatenate(ys))
            self._roof_samples_key = ((x0, x1, y0, y1), g.chips, key)
        m = self._scene_matrix()
        key = (m, x0, x1, y0, y1, id(g.chips))
        if self._roof_scene[0] != key:  # (g.chips kept with it: its id stays its own)
            self._roof_scene = (key, *self._to_scene(*self._roof_samples, m), g.chips)
        px, py = self._to_scene([p.x for p in g.points] + [p.net_x for p in g.points if p.net_x],
                                [p.y for p in g.points] + [p.y for p in g.points if p.net_x], m)
        tx, ty = self._label_samples(list(self.op_labels.values())
                                     + list(self.roof_labels.values()))
        return [self._roof_scene[:3], (None, np.concatenate([px] + tx), np.concatenate([py] + ty))]

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
