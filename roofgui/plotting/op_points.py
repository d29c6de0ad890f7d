"""The roofline's op points: where each op (phase) sits on each chip, filled in the chip's
colour and shaped by its bound, with a hollow twin at its link intensity when it sends
anything over a link, joined to it by a dotted connector.

Two scatters hold them: the selected op's points and twins (the op the form edits, so the
one a keystroke moves), and every other op's, drawn under them (faded when there are many
ops).  A scatter is set again only when what it shows changed, so a keystroke sets the
selected op's few spots, not every op's; the others' scatter can be drawn from the lines'
cached picture (:mod:`.cache_layer`).  The connectors are one line.  Each pyqtgraph item
that changes costs a keystroke a few tenths of a millisecond whatever it draws.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from roofgui.plotting.plot_items import (Spot, face_colour, make_pen, new_curve, new_scatter,
                                         spot_brush, spot_pen)
from roofgui.presentation import plotdata as pd
from roofgui.presentation.colours import FADED
from roofgui.presentation.style import PlotStyle


class OpPoints:
    """The op points of a plot: ``selected_item`` (the selected op's spots, twins first),
    ``others_item`` (every other op's), ``net_link`` (the connectors), ``points[key]``
    and ``net_points[key]`` (a :class:`~.plot_items.Spot` each, by ``(op_index, phase,
    chip_id)``), ``spot_keys[item]`` (which point each spot of a scatter is)."""

    def __init__(self, plot) -> None:
        self.selected_item = new_scatter(10)
        self.others_item = new_scatter(9)
        self.net_link = new_curve(-5, antialias=False)
        plot.addItem(self.selected_item)
        plot.addItem(self.others_item)
        plot.addItem(self.net_link, ignoreBounds=True)
        self.points: dict[tuple[int, str, str], Spot] = {}
        self.net_points: dict[tuple[int, str, str], Spot] = {}
        #: each spot's kind ("twin" or "point") and point key, by scatter
        self.spot_keys: dict[pg.ScatterPlotItem, list[tuple[str, tuple[int, str, str]]]] = {
            self.selected_item: [], self.others_item: []}
        #: what each item shows (set again only when it would show something else)
        self._shown: dict[object, tuple] = {}

    def sync(self, g: pd.RooflineGeometry, selected: int | None, faded: set[int],
             style: PlotStyle) -> bool:
        """Show the geometry's points; True when the other ops' scatter changed."""
        mine = [p for p in g.points if p.op_index == selected]
        rest = [p for p in g.points if p.op_index != selected]  # (the faded, with many ops)
        self._set(self.selected_item, mine, faded, style)
        changed = self._set(self.others_item, rest, faded, style)
        self._set_links([p for p in g.points if p.net_x is not None], style)
        self._sync_views()
        return changed

    def _set_links(self, twins: list, style: PlotStyle) -> None:
        """The dotted connectors from the points to their twins (as they are: left)."""
        shown = (style, [(p.x, p.net_x, p.y) for p in twins])
        if self._shown.get(self.net_link) == shown:
            return
        self._shown[self.net_link] = shown
        self.net_link.setData(np.array([v for p in twins for v in (p.x, p.net_x, np.nan)], float),
                              np.array([v for p in twins for v in (p.y, p.y, np.nan)], float))
        self.net_link.setPen(make_pen(style.muted, style.guide_width, "dot", alpha=0.8))
        self.net_link.setVisible(bool(twins))

    def _set(self, item: pg.ScatterPlotItem, pts: list, faded: set[int],
             style: PlotStyle) -> bool:
        """One scatter's spots: each point's twin (under the points), then the points;
        nothing is set when they are as shown.  True when it set them."""
        alpha = [FADED if p.op_index in faded else None for p in pts]
        # (and what each tooltip tells: the same results for an op the edit left alone)
        shown = (style, alpha, pts, [id(getattr(p.entry, "analysis", p.entry)) for p in pts])
        if self._shown.get(item) == shown:
            return False
        self._shown[item] = shown
        s = style
        twins = [p for p in pts if p.net_x is not None]
        edge = [spot_pen(s.marker_edge, s.marker_outline, a) for a in alpha]
        hollow = spot_brush(face_colour(s))
        item.setData(
            x=[p.net_x for p in twins] + [p.x for p in pts],
            y=[p.y for p in twins] + [p.y for p in pts], data=twins + pts,
            symbol=[p.symbol for p in twins + pts],
            size=[s.marker_size * 0.85] * len(twins) + [s.marker_size] * len(pts),
            pen=[spot_pen(s.colour(p.colour), s.marker_outline * 1.4) for p in twins] + edge,
            brush=[hollow] * len(twins) + [spot_brush(s.colour(p.colour), a)
                                           for p, a in zip(pts, alpha)])
        item.setVisible(bool(pts))
        self.spot_keys[item] = [("twin", p.key) for p in twins] + [("point", p.key) for p in pts]
        return True

    def _sync_views(self) -> None:
        """Each spot's view by point key (the same object while the point shows)."""
        live: dict[str, set] = {"point": set(), "twin": set()}
        for item, keys in self.spot_keys.items():
            for i, (kind, key) in enumerate(keys):
                views = self.points if kind == "point" else self.net_points
                v = views.get(key)
                if v is None:
                    v = views[key] = Spot(item, i)
                v.item, v.index, v.live = item, i, True
                live[kind].add(key)
        for kind, views in (("point", self.points), ("twin", self.net_points)):
            for key in [k for k in views if k not in live[kind]]:
                views.pop(key).live = False

    def op_at(self, hits_of) -> int | None:
        """The op of the topmost spot ``hits_of(item)`` finds (the selected op's first)."""
        for item in (self.selected_item, self.others_item):
            hits = hits_of(item)
            if hits:
                return self.spot_keys[item][hits[0].index()][1][0]
        return None
