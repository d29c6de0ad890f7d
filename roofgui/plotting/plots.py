"""The roofline plot.  It only draws: every coordinate comes from
:mod:`roofgui.presentation.plotdata` (log10 units on linear axes whose ticks read as
powers of ten); items are made once per chip / roof / op and updated with ``setData``.
Its annotations are laid out by :mod:`.roofline_layout`.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore
from PySide6.QtCore import Signal

from roofgui.plotting import roofline_layout as layout
from roofgui.plotting.cache_layer import CacheLayer
from roofgui.plotting.op_points import OpPoints
from roofgui.plotting.plot_base import LogPlot
from roofgui.plotting.plot_items import (LEGEND_CORNERS, LogAxis, make_pen,
                                         qcolor, roof_pen, set_line_pen, spot_brush,
                                         spot_pen, style_label)
from roofgui.presentation import plotdata as pd
from roofgui.presentation.colours import faded_ops
from roofgui.presentation.style import PlotStyle

__all__ = ["LogAxis", "RooflinePlot", "LEGEND_CORNERS"]

def _sync_keys(store: dict, keys, make, remove) -> None:
    """Items in ``store`` for exactly ``keys``: ``make(key)`` for new ones, ``remove`` the rest."""
    for k in [k for k in store if k not in keys]:
        remove(store, k)
    for k in keys:
        if k not in store:
            store[k] = make(k)


class RooflinePlot(LogPlot):
    """Log-log roofline: roofs per chip, op points, ridge marks and red/yellow/green regions.

    Introspection for tests: ``roof_curves[chip_id][key]`` (``"compute:bf16"``,
    ``"hbm"``, ``"link:ici"``), ``roof_labels[(chip_id, key)]`` (compute roofs),
    ``ridge_item`` (every chip's ridges, one scatter), ``guide_lines[chip_id]`` (its
    ridges' dotted drops, one line; also ``ridge_guides[(chip_id, ridge_key)]``),
    ``ridge_labels[(chip_id, ridge_key)]``, ``op_points`` (an :class:`~.op_points.OpPoints`:
    the selected op's points and link twins in one scatter, ``point_item``, the other
    ops' in another, the twins' connectors as one line, ``net_link``),
    ``points[(op_index, phase, chip_id)]`` and ``net_points[...]`` (a
    :class:`~.plot_items.Spot` each), ``op_labels[(op_index, phase)]``,
    ``region_items[kind]``, ``region_labels[kind]``, ``legend``,
    ``legend_corner``, ``geometry`` (the last
    :class:`~roofgui.presentation.plotdata.RooflineGeometry`).

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
        self.roof_curves: dict[str, dict[str, pg.PlotCurveItem]] = {}
        self.roof_labels: dict[tuple[str, str], pg.TextItem] = {}
        self.ridge_item = self._add_scatter(5)
        self.guide_lines: dict[str, pg.PlotCurveItem] = {}
        self.ridge_guides: dict[tuple[str, str], pg.PlotCurveItem] = {}
        self.ridge_labels: dict[tuple[str, str], pg.TextItem] = {}
        self.op_points = OpPoints(self)
        self.point_item = self.op_points.selected_item
        self.net_link = self.op_points.net_link
        self.points = self.op_points.points
        self.net_points = self.op_points.net_points
        self.op_labels: dict[tuple[int, str], pg.TextItem] = {}
        self._label_looks: dict[tuple[int, str], tuple] = {}  # (style, selected) of each
        self.region_items: dict[str, pg.LinearRegionItem] = {}
        self.region_labels: dict[str, pg.TextItem] = {}
        for kind in pd.REGION_KINDS:
            item = pg.LinearRegionItem((0, 1), movable=False)
            item.setZValue(-100)
            item.setVisible(False)
            for ln in item.lines:
                ln.setPen(pg.mkPen(None))
                ln.setHoverPen(pg.mkPen(None))
                ln.setVisible(False)
            self.addItem(item, ignoreBounds=True)
            self.region_items[kind] = item
            self.region_labels[kind] = self._add_label(-90, (0.5, 0.0))
            self.region_labels[kind].setVisible(False)
        self._colours: dict[str, int] = {}
        #: the chips' geometry and style the chips' items were last set from
        self._chips_shown: tuple | None = None
        #: the chips' geometry, style and whether there were points, the legend was made for
        self._legend_from: tuple | None = None
        #: the roofs' samples for the legend's placement, and the view they were made for
        self.roof_kept: tuple | None = None
        self._regions_style: PlotStyle | None = None
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
        self._restyle_items()
        self._rebuild_legend()
        if not self._has_view and (g.chips or g.points):
            view = getattr(getattr(scenario, "view", None), "roofline", None)
            self.set_view(view, layout=False)
        elif self._has_view and not self.user_view and not pd.view_covers(
                self.view_range(), *pd.key_points(g)):
            self.fit(layout=False)  # the user has not zoomed: follow the data when it leaves
        self.lay_out_annotations()

    def _restyle_items(self) -> None:
        """Every item as the geometry and the style say (the chips' items only when the
        chips or the style changed: an op's edit moves its points and labels alone)."""
        s = self.style
        if self._regions_style is not s:
            self._regions_style = s
            for kind, item in self.region_items.items():
                brush = pg.mkBrush(qcolor(s.region_colour(kind), s.region_alpha))
                item.setBrush(brush)
                item.setHoverBrush(brush)
                style_label(self.region_labels[kind], s, s.muted, s.annotation_font_pt * 0.95)
        g = self.geometry
        if g is None:
            return
        shown = self._chips_shown
        if shown is None or shown[0] is not g.chips or shown[1] is not s:
            self._chips_shown = (g.chips, s)
            self._sync_chips(g)
        self._sync_points(g)
        self._sync_op_labels(g)
        present = {r.kind for r in g.regions}
        for kind, item in self.region_items.items():
            if item.isVisible() != (kind in present):  # (extents: _lay_out, in the view)
                item.setVisible(kind in present)
                self._invalidate_layers()

    def _make_layers(self) -> None:
        self.layers = {"back": CacheLayer(self.vb, -100), "lines": CacheLayer(self.vb, 0)}
        self._sync_layers()

    def _sync_layers(self) -> None:
        """The cache layers' members: the bands and the grid; the ridges' guides, the link
        roofs, the other roofs and the ridges (each layer in the order of z values)."""
        if not self.layers:
            return
        self.layers["back"].set_members([*self.region_items.values(), self.grid_item])
        roofs = [c for curves in self.roof_curves.values() for c in curves.values()]
        roofs.sort(key=lambda c: c.zValue())  # (stable: the link roofs first)
        self.layers["lines"].set_members([*self.guide_lines.values(), *roofs, self.ridge_item,
                                          self.op_points.others_item])
        self._invalidate_layers()

    def _sync_chips(self, g: pd.RooflineGeometry) -> None:
        """Roofs, ridge markers and guides, roof and ridge labels, per chip."""
        self._sync_chip_items(g)
        self._sync_layers()

    def _sync_chip_items(self, g: pd.RooflineGeometry) -> None:
        s = self.style
        chips = {c.chip_id: c for c in g.chips}
        for cid in [c for c in self.roof_curves if c not in chips]:
            for k in list(self.roof_curves[cid]):
                self._remove(self.roof_curves[cid], k)
            del self.roof_curves[cid]
        ridges = [(r, s.colour(c.colour)) for c in g.chips for r in c.ridges]
        self.ridge_item.setData(
            x=[r.x for r, _ in ridges], y=[r.y for r, _ in ridges], size=s.ridge_size,
            data=[r.tooltip for r, _ in ridges],
            symbol=[pd.chip_look(c.colour).marker for c in g.chips for _ in c.ridges],
            pen=spot_pen(s.marker_edge, s.marker_outline * 0.8),
            brush=[spot_brush(col) for _, col in ridges])
        _sync_keys(self.guide_lines, chips, lambda _: self._add_guide(-20),
                   self._remove)
        _sync_keys(self.roof_labels, {(c.chip_id, r.key) for c in g.chips for r in c.roofs
                                      if r.label}, lambda _: self._add_label(25, (1.0, 1.0)),
                   self._remove)
        _sync_keys(self.ridge_labels, {(c.chip_id, r.key) for c in g.chips for r in c.ridges},
                   lambda _: self._add_label(30), self._remove)
        self.ridge_guides = {}
        for c in g.chips:
            col = s.colour(c.colour)
            curves = self.roof_curves.setdefault(c.chip_id, {})
            _sync_keys(curves, {r.key: r for r in c.roofs},
                       lambda k, c=c: self._add_curve(-1 if k.startswith("link") else 0),
                       self._remove)
            for r in c.roofs:
                curves[r.key].setData(r.x, r.y)
                set_line_pen(curves[r.key], make_pen(col, s.link_width, "dash")
                             if r.kind == "link" else roof_pen(
                                 col, s.roof_width, pd.chip_look(c.colour).dash, r.overlap))
                if r.label:
                    lab = self.roof_labels[(c.chip_id, r.key)]
                    lab.setText(r.label)
                    style_label(lab, s, col, s.annotation_font_pt)
            guide = self.guide_lines[c.chip_id]
            guide.setData(np.array([v for r in c.ridges for v in (r.x, r.x, np.nan)], float),
                          np.array([v for r in c.ridges for v in (r.y, -pd.LOG_INF, np.nan)],
                                   float))
            guide.setPen(make_pen(col, s.guide_width, "dot", alpha=0.75))
            guide.setVisible(bool(c.ridges))
            for r in c.ridges:
                self.ridge_guides[(c.chip_id, r.key)] = guide
                lab = self.ridge_labels[(c.chip_id, r.key)]
                lab.setText(r.label)
                style_label(lab, s, col, s.annotation_font_pt, bold=True)
                lab.setVisible(r.label_shown)  # a value two chips share: once

    def _sync_points(self, g: pd.RooflineGeometry) -> None:
        """The op points (:class:`~.op_points.OpPoints`); the other ops' scatter is drawn
        from the lines' picture, made again when it changed."""
        if self.op_points.sync(g, self.selected_op, self.faded_ops(g), self.style) \
                and "lines" in self.layers:
            self.layers["lines"].invalidate()

    def faded_ops(self, g: pd.RooflineGeometry) -> set[int]:
        """The ops drawn faded: all but the selected one, when there are many ops."""
        return faded_ops(g.labels, self.selected_op)

    def _sync_op_labels(self, g: pd.RooflineGeometry) -> None:
        s = self.style
        labels = {lab.key: lab for lab in g.labels}
        faded = self.faded_ops(g)
        _sync_keys(self.op_labels, labels, lambda _: self._add_label(20), self._remove)
        for k in [k for k in self._label_looks if k not in labels]:
            del self._label_looks[k]
        for k, lab in labels.items():
            item = self.op_labels[k]
            if item.toPlainText() != lab.text:
                item.setText(lab.text)
            on = k[0] == self.selected_op  # the op the results show: bold, framed
            dim = k[0] in faded
            if self._label_looks.get(k) != (s, on, dim):
                self._label_looks[k] = (s, on, dim)
                style_label(item, s, s.muted if dim else s.foreground, s.annotation_font_pt,
                            bold=on, framed=on)
            item.setPos(lab.x, lab.y)  # (its anchor: the layout's, after this)

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        made = self._legend_from  # (the same chips' geometry while only points move)
        if made is not None and made[0] is g.chips and made[1:] == (s, bool(g.points)):
            return
        self._legend_from = (g.chips, s, bool(g.points))
        # the marker key is fixed (network only with a link roof): an edit that moves
        # points across a ridge never changes the legend
        has_link = any(r.kind == "link" for c in g.chips for r in c.roofs)
        bounds = (["compute", "memory"] + (["network"] if has_link else [])) if g.points else []
        entries = [(c.label, dict(pen=make_pen(s.colour(c.colour), s.roof_width, lk.dash), **(
            {} if lk.dash == "solid" else dict(symbol=lk.marker, brush=pg.mkBrush(qcolor(
                s.colour(c.colour))))))) for c in g.chips for lk in [pd.chip_look(c.colour)]]
        if has_link:
            entries.append(("link roof", dict(pen=make_pen(s.neutral, s.link_width,
                                                                   "dash"))))
        for b in bounds:
            entries.append((pd.BOUND_LABELS[b],
                            dict(symbol=pd.BOUND_SYMBOLS[b],
                                         brush=pg.mkBrush(qcolor(s.neutral)),
                                         sym_pen=make_pen(s.marker_edge, s.marker_outline),
                                         size=s.marker_size * 0.85)))
        self._legend_entries(entries)

    # -- annotations that follow the view ---------------------------------------------
    def _lay_out(self) -> None:
        if self.geometry is None:
            self.place_legend()
            return
        layout.lay_out(self)

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        return layout.obstacles(self)

    def all_labels(self) -> list:
        """Every text label of the plot (what :mod:`.declutter` shows or hides)."""
        return [*self.op_labels.values(), *self.roof_labels.values(),
                *self.ridge_labels.values(), *self.region_labels.values()]

    def _bottom_labels(self) -> list:
        return list(self.ridge_labels.values())

    def set_selected_op(self, index: int | None) -> None:
        """Emphasise an op's labels (bold, framed): the op the window's results show."""
        if index == self.selected_op:
            return
        self.selected_op = index
        if self.geometry is not None:
            self._sync_points(self.geometry)  # (many ops: the others fade)
            self._sync_op_labels(self.geometry)
        self._relayout.start()  # a bold label is wider: slide it inwards again if need be

    # -- clicks -----------------------------------------------------------------
    def op_at_scene(self, scene_pos) -> int | None:
        """The op whose point, link twin or label is at a scene position (None: none)."""
        op = self.op_points.op_at(lambda item: self._scatter_hit(item, scene_pos))
        if op is not None:
            return op
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
        """Every op point (or twin) under the mouse, else a ridge, else a roof."""
        hits = [h for item in (self.point_item, self.op_points.others_item)
                for h in self._scatter_hit(item, scene_pos)]
        if hits:
            return "<br><hr>".join(h.data().tooltip for h in hits)
        tip = self._spot_tip([self.ridge_item], scene_pos)
        g = self.geometry
        if tip is not None or g is None:
            return tip
        for c in g.chips:
            for r in c.roofs:
                if self._curve_hit(self.roof_curves[c.chip_id][r.key], scene_pos):
                    return r.tooltip
        return None
