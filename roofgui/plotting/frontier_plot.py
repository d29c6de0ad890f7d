"""The Frontier view: tokens/s per chip against tokens/s per user over batch and tensor
parallelism, with the TTFT and TPOT limits and the frontier highlighted.

One colour per tensor-parallel degree (a line through its batches); a point that meets the
limits is filled, one that misses a limit hollow, one that does not fit in HBM a faded
cross.  The frontier is a thick line through its points, each ringed.  The TPOT limit is a
vertical dashed line (points left of it are too slow per token), the TTFT limit a dotted line
through where each degree's line crosses it.  Everything drawn comes from
:func:`roofgui.presentation.frontier.frontier_geometry`; this module places items.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from roofgui.plotting.placement import label_samples
from roofgui.plotting.plot_base import LogPlot
from roofgui.plotting.plot_items import (face_colour, make_font, make_pen, qcolor, spot_brush,
                                         spot_pen, style_label)
from roofgui.presentation import plotdata as pd
from roofgui.presentation.frontier import (MEETS, MISSES, STATE_LEGENDS, UNFIT, FrontierGeometry,
                                           legend_tps)
from roofgui.presentation.style import PlotStyle

#: Marker of each state.
SYMBOLS = {MEETS: "o", MISSES: "o", UNFIT: "x"}


class FrontierPlot(LogPlot):
    """For tests: ``geometry``; ``scatters`` (one ScatterPlotItem per state, its spots'
    data the points' tooltips), ``state_points`` (the FrontierPoints of each scatter, in
    order), ``lines`` (per degree), ``frontier_line``, ``frontier_rings``, ``tpot_line``,
    ``ttft_line``, ``tpot_label``, ``ttft_label``, ``message``."""

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "si", "si")
        self._x_title = "Output tokens/s per user (1 / TPOT)"
        self._y_title = "Output tokens/s per chip"
        self.geometry: FrontierGeometry | None = None
        self.lines: dict[int, pg.PlotCurveItem] = {}
        self.scatters = {state: self._add_scatter(z) for state, z in
                         ((UNFIT, 8), (MISSES, 9), (MEETS, 10))}
        self.state_points: dict[str, list] = {s: [] for s in self.scatters}
        self.frontier_line = self._add_curve(7)
        self.frontier_rings = self._add_scatter(6)
        self.tpot_line = self._add_curve(5, bounds=False)
        self.ttft_line = self._add_curve(5, bounds=False)
        self.ttft_marks = self._add_scatter(5)
        self.tpot_label = self._add_label(20, anchor=(-0.05, 1.0))
        self.ttft_label = self._add_label(20, anchor=(0.0, 1.0))
        self.message = pg.TextItem("", anchor=(0.5, 0.5))
        self.addItem(self.message, ignoreBounds=True)
        self._apply_base_style()

    def update_from(self, g: FrontierGeometry) -> None:
        """Show ``g``; the view refits unless the user has zoomed."""
        self.geometry = g
        self._fit = g.fit
        self._set_titles(g.x_title, g.y_title)
        for tp in list(self.lines):
            if tp not in {ln[0] for ln in g.lines}:
                self._remove(self.lines, tp)
        for tp, _slot, xs, ys in g.lines:
            if tp not in self.lines:
                self.lines[tp] = self._add_curve(3)
            self.lines[tp].setData(np.array(xs), np.array(ys))
        for state in self.scatters:
            self.state_points[state] = g.of_state(state)
        fx, fy = g.frontier
        self.frontier_line.setData(np.array(fx), np.array(fy))
        self.tpot_line.setVisible(g.tpot_x is not None)
        self.tpot_label.setVisible(g.tpot_x is not None)
        self.tpot_label.setText(g.tpot_label)
        tx, ty = g.ttft
        self.ttft_line.setData(np.array(tx), np.array(ty))
        self.ttft_label.setText(g.ttft_label)
        self.ttft_label.setVisible(bool(tx))
        self.message.setText(g.message)
        self.message.setVisible(bool(g.message))
        self._restyle_items()
        self._rebuild_legend()
        if not self.user_view:
            self.fit(layout=False)
        self.lay_out_annotations()

    # -- style -------------------------------------------------------------------------
    def _restyle_items(self) -> None:
        g = self.geometry
        if g is None:
            return
        s = self.style
        for tp, slot, _xs, _ys in g.lines:
            self.lines[tp].setPen(make_pen(s.colour(slot), s.curve_width * 0.6, alpha=0.55))
        size = s.marker_size * 0.8
        for state, item in self.scatters.items():
            pts = self.state_points[state]
            cols = [s.colour(p.slot) for p in pts]
            if state == MEETS:
                item.setData(x=[p.x for p in pts], y=[p.y for p in pts],
                             data=[p.tooltip for p in pts], symbol="o", size=size,
                             brush=[spot_brush(c) for c in cols],
                             pen=[spot_pen(s.marker_edge, s.marker_outline) for _ in cols])
            elif state == MISSES:
                item.setData(x=[p.x for p in pts], y=[p.y for p in pts],
                             data=[p.tooltip for p in pts], symbol="o", size=size,
                             brush=[spot_brush(face_colour(s)) for _ in cols],
                             pen=[spot_pen(c, s.marker_outline * 1.5) for c in cols])
            else:
                item.setData(x=[p.x for p in pts], y=[p.y for p in pts],
                             data=[p.tooltip for p in pts], symbol="x", size=size,
                             brush=[spot_brush(c, 0.45) for c in cols],
                             pen=[spot_pen(c, 0.8, 0.45) for c in cols])
        self.frontier_line.setPen(make_pen(s.foreground, s.curve_width * 1.6, alpha=0.8))
        self.frontier_rings.setData(x=list(g.frontier[0]), y=list(g.frontier[1]), symbol="o",
                                    size=s.marker_size * 1.45, brush=pg.mkBrush(None),
                                    pen=spot_pen(s.foreground, s.marker_outline * 1.6))
        self.tpot_line.setPen(make_pen(s.region_red, s.curve_width, "dash"))
        self.ttft_line.setPen(make_pen(s.region_red, s.curve_width, "dot"))
        self.ttft_marks.setData(x=list(g.ttft[0]), y=list(g.ttft[1]), symbol="s",
                                size=s.marker_size * 0.5, brush=spot_brush(s.region_red),
                                pen=spot_pen(s.region_red, 1.0))
        for lab in (self.tpot_label, self.ttft_label):
            style_label(lab, s, s.region_red, s.annotation_font_pt, bold=True)
        self.message.setColor(qcolor(s.muted))
        self.message.setFont(make_font(s, s.label_font_pt))

    def _rebuild_legend(self) -> None:
        g = self.geometry
        if g is None:
            return
        s = self.style
        entries = [(f"TP {tp}", dict(pen=make_pen(s.colour(slot), s.curve_width * 0.6),
                                     symbol="o", brush=spot_brush(s.colour(slot)),
                                     sym_pen=spot_pen(s.marker_edge, s.marker_outline)))
                   for tp, slot in legend_tps(g.points)]
        have = {p.state for p in g.points}
        looks = {MEETS: dict(symbol="o", brush=spot_brush(s.neutral)),
                 MISSES: dict(symbol="o", brush=spot_brush(face_colour(s)),
                              sym_pen=spot_pen(s.neutral, s.marker_outline * 1.5)),
                 UNFIT: dict(symbol="x", brush=spot_brush(s.neutral, 0.45))}
        entries += [(STATE_LEGENDS[st], looks[st]) for st in (MEETS, MISSES, UNFIT) if st in have]
        if g.frontier[0]:
            entries.append(("frontier", dict(pen=make_pen(s.foreground, s.curve_width * 1.6),
                                             symbol="o", brush=pg.mkBrush(None),
                                             sym_pen=spot_pen(s.foreground, s.marker_outline * 1.6))))
        if g.tpot_x is not None:
            entries.append((g.tpot_label, dict(pen=make_pen(s.region_red, s.curve_width, "dash"))))
        if g.ttft[0]:
            entries.append((g.ttft_label, dict(pen=make_pen(s.region_red, s.curve_width, "dot"))))
        self._legend_entries(entries)

    # -- annotations that follow the view ------------------------------------------------
    def _lay_out(self) -> None:
        g = self.geometry
        if g is not None:
            x0, x1, y0, y1 = self.view_range()
            if g.tpot_x is not None:
                self.tpot_line.setData(np.array([g.tpot_x, g.tpot_x]), np.array([y0 - 1, y1 + 1]))
                self.tpot_label.setPos(g.tpot_x, y0)
            if g.ttft[0]:
                i = int(np.argmax(g.ttft[1]))
                self.ttft_label.setPos(g.ttft[0][i], g.ttft[1][i])
            self.message.setPos((x0 + x1) / 2, (y0 + y1) / 2)
        self.place_legend()

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        g = self.geometry
        if g is None or not g.points:
            return np.empty(0), np.empty(0)
        xs, ys = [], []
        x0, x1, y0, y1 = self.view_range()
        for _tp, _slot, lx, ly in g.lines:
            if len(lx) >= 2:
                dx, dy = pd.densify(np.array(lx), np.array(ly), (x1 - x0) / 150.0)
                xs.append(dx)
                ys.append(dy)
        xs.append(np.array([p.x for p in g.points]))
        ys.append(np.array([p.y for p in g.points]))
        if g.tpot_x is not None:
            xs.append(np.full(20, g.tpot_x))
            ys.append(np.linspace(y0, y1, 20))
        sx, sy = self.to_scene(np.concatenate(xs), np.concatenate(ys))
        tx, ty = label_samples([self.tpot_label, self.ttft_label])
        return np.concatenate([sx] + tx), np.concatenate([sy] + ty)

    # -- hover ------------------------------------------------------------------------
    def _readout_text(self, x_log: float, y_log: float) -> str:
        return (f"{pd.tick_label_exact(x_log, 'si')}tok/s per user   "
                f"{pd.tick_label_exact(y_log, 'si')}tok/s per chip")

    def tooltip_at_scene(self, scene_pos) -> str | None:
        hits = [h for st in (MEETS, MISSES, UNFIT)
                for h in self._scatter_hit(self.scatters[st], scene_pos)]
        if hits:
            return "<br><hr>".join(h.data() for h in hits)
        g = self.geometry
        if g is not None and g.tpot_x is not None and self._curve_hit(self.tpot_line, scene_pos):
            return f"{g.tpot_label}: left of this line a token takes longer than the limit"
        if g is not None and g.ttft[0] and self._curve_hit(self.ttft_line, scene_pos):
            return (f"{g.ttft_label}: along each degree's line, batches past this line take "
                    "longer than the limit to the first token")
        return None
