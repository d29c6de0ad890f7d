"""The sweep plot: attainable FLOP/s (or time per op) against a swept dimension, one
curve per op × chip, with each curve's critical value marked.  It only draws: every
coordinate comes from :func:`roofgui.presentation.sweepgeom.sweep_geometry`.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pyqtgraph as pg

from roofgui.plotting import sweep_focus as focus
from roofgui.plotting.cache_layer import CacheLayer
from roofgui.plotting.placement import label_samples
from roofgui.plotting.plot_base import LogPlot
from roofgui.plotting.plot_items import (Spot, face_colour, make_pen, set_anchor,
                                         set_line_pen, spot_brush, spot_pen, style_label,
                                         text_px)
from roofgui.presentation import plotdata as pd
from roofgui.presentation.colours import FADED, faded_ops
from roofgui.presentation import sweepgeom as sg
from roofgui.presentation.style import PlotStyle

__all__ = ["SweepPlot"]


def _drawn(ln: sg.SweepLine) -> tuple[np.ndarray, np.ndarray]:
    """What a line's curve draws: its simplified drawing if it has one, else its points."""
    if ln.draw_x is not None and ln.draw_y is not None:
        return ln.draw_x, ln.draw_y
    return ln.x, ln.y


class SweepPlot(LogPlot):
    """Attainable FLOP/s (or time per op) against a swept dimension; one curve per op × chip.

    Introspection: ``curves[(op_index, phase, chip_id)]``, ``crit_markers[key]`` (a
    :class:`~.plot_items.Spot` of ``crit_item``, the one scatter of critical markers),
    ``crit_guides[key]`` (``guide_item``, the one dotted line of every critical value's
    drop to the axis, when the line has one), ``crit_labels[key]``, ``legend``,
    ``geometry``.
    """

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        self._x_title = "B (batch, tokens)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: sg.SweepGeometry | None = None
        self.curves: dict[tuple[int, str, str], pg.PlotCurveItem] = {}
        self.crit_item = self._add_scatter(10)
        self.crit_markers: dict[tuple[int, str, str], Spot] = {}
        self.guide_item = self._add_guide(-20)
        self.crit_guides: dict[tuple[int, str, str], pg.PlotCurveItem] = {}
        self.crit_labels: dict[tuple[int, str, str], pg.TextItem] = {}
        self._colours: dict[str, int] = {}
        #: the selected op (its curves drawn strong) and its value of the swept dimension
        self.focus_op: int | None = None
        self.value_guide = self._add_guide(-20)
        self.value_label = self._add_label(20)
        self.value_guide.setVisible(False)
        self.value_label.setVisible(False)
        self._value: tuple[float | None, str] = (None, "")
        #: each curve's look and data as last set, by line key (what an edit left alone
        #: is not set again)
        self._looks: dict[tuple, tuple] = {}
        self._data: dict[tuple, tuple] = {}
        #: each line's curves, drawings and labels from the model, reused for unchanged ops
        self._memo = sg.SweepMemo()
        #: the first and last of the lines drawn live (not from a cache layer's picture)
        self._live: tuple | None = None
        self._value_style: PlotStyle | None = None
        #: the style and the lines' names and looks the legend was made from
        self._legend_from: tuple | None = None
        self._apply_base_style()

    def update_from(self, scenario, curves, colours: Mapping[str, int] | None = None) -> None:
        """Show sweep curves; the view refits when the swept dimension or y quantity changes.

        ``colours``: palette slots per chip id to keep (pass the roofline's
        ``geometry.colours`` so a chip has one colour in both plots).
        """
        self.focus_op = focus.selected_op(scenario)
        self._value = focus.current_value(scenario)
        curves = focus.focus_curves(scenario, curves)
        prev = dict(self._colours)
        prev.update({k: v for k, v in (colours or {}).items() if not k.startswith("op:")})
        g = sg.sweep_geometry(scenario, curves, prev, n_colours=len(self.style.palette),
                              memo=self._memo)
        self._colours = {k: v for k, v in g.colours.items() if not k.startswith("op:")} \
            or self._colours
        old = self.geometry
        refit = (old is None or g.y_kind != old.y_kind or g.dim != old.dim
                 or (not self.user_view and g.fit != old.fit))
        self._adopt(g)
        self._sync_lines(g)
        self._restyle_items()
        self._rebuild_legend()
        if refit and g.lines:
            self.fit(layout=False)
        self.lay_out_annotations()

    def _make_layers(self) -> None:
        # the curves of the lines before and after those the last edit moved
        self.layers = {"below": CacheLayer(self.vb, -0.01), "above": CacheLayer(self.vb, 0.01)}
        self._sync_layers(set())

    def _sync_layers(self, moved: set) -> None:
        """The lines the last edit moved (``moved``: their keys; empty: as before) are drawn
        live, those before and after them (in the geometry's order) from two pictures."""
        g = self.geometry
        if not self.layers or g is None:
            return
        keys = [ln.key for ln in g.lines]
        if moved:
            at = [i for i, k in enumerate(keys) if k in moved]
            self._live = (keys[at[0]], keys[at[-1]])
        lo = keys.index(self._live[0]) if self._live and self._live[0] in keys else len(keys)
        hi = keys.index(self._live[1]) if self._live and self._live[1] in keys else lo - 1
        self.layers["below"].set_members([self.curves[k] for k in keys[:lo]])
        self.layers["above"].set_members([self.curves[k] for k in keys[max(hi, lo - 1) + 1:]])

    def _sync_lines(self, g: sg.SweepGeometry) -> None:
        """A curve and a label per line (data set where it changed)."""
        keys = [ln.key for ln in g.lines]
        moved = set()
        live = set(keys)
        for k in [k for k in self.curves if k not in live]:
            self._remove(self.curves, k)
            self._remove(self.crit_labels, k)
            self._looks.pop(k, None)
            self._data.pop(k, None)
        for ln in g.lines:
            k = ln.key
            if k not in self.curves:
                self.curves[k] = self._add_curve(0)
                self.crit_labels[k] = self._add_label(20)
            x, y = _drawn(ln)
            last = self._data.get(k)
            if last is None or last[0] is not x or last[1] is not y:
                self._data[k] = (x, y)
                self.curves[k].setData(x, y)
                moved.add(k)
            lab = self.crit_labels[k]  # (shown or not: _lay_out, by what fits)
            if ln.crit_x is not None and lab.toPlainText() != ln.crit_label:
                lab.setText(ln.crit_label)
        self._sync_layers(moved)

    def _sync_guides(self, g: sg.SweepGeometry) -> None:
        """Every critical value's dotted drop to the axis, one line NaN apart (its marker and
        label carry the line's colour; an item a colour would cost a frame time at 16 chips)."""
        lines = [ln for ln in g.lines if ln.crit_x is not None]
        self.guide_item.setData(
            np.array([v for ln in lines for v in (ln.crit_x, ln.crit_x, np.nan)], float),
            np.array([v for ln in lines for v in (ln.crit_y, -pd.LOG_INF, np.nan)], float))
        self.guide_item.setVisible(bool(lines))
        self.crit_guides = {ln.key: self.guide_item for ln in lines}

    def _sync_markers(self, g: sg.SweepGeometry) -> None:
        """Every line's critical marker as one spot of one scatter: a ring in the line's
        colour around the background's colour."""
        s = self.style
        marks = [ln for ln in g.lines if ln.crit_x is not None]
        faded = faded_ops(g.lines, self.focus_op)
        self.crit_item.setData(
            x=[ln.crit_x for ln in marks], y=[ln.crit_y for ln in marks],
            data=[ln.tooltip for ln in marks], symbol="o", size=s.ridge_size * 1.3,
            pen=[spot_pen(s.colour(ln.colour), s.marker_outline * 1.5,
                          FADED if ln.op_index in faded else None) for ln in marks],
            brush=spot_brush(face_colour(s)))
        self.crit_item.setVisible(bool(marks))
        at = {ln.key: i for i, ln in enumerate(marks)}
        for ln in g.lines:
            v = self.crit_markers.get(ln.key)
            if v is None:
                v = self.crit_markers[ln.key] = Spot(self.crit_item, 0)
            v.index, v.live = at.get(ln.key, 0), ln.key in at
        for k in [k for k in self.crit_markers if k not in self.curves]:
            self.crit_markers.pop(k).live = False

    def _restyle_items(self) -> None:
        """Each line's curve and label in the line's colour and dash (set where it changed),
        the guides and the markers."""
        s = self.style
        g = self.geometry
        if self._value_style is not s:
            self._value_style = s
            self.value_guide.setPen(make_pen(s.neutral, s.guide_width, "dot", alpha=0.8))
            self.guide_item.setPen(make_pen(s.muted, s.guide_width, "dot", alpha=0.6))
            style_label(self.value_label, s, s.muted, s.annotation_font_pt)
        if g is None:
            return
        faded = faded_ops(g.lines, self.focus_op)
        for ln in g.lines:
            alpha = FADED if ln.op_index in faded else None
            look = (s, ln.colour, ln.dash, alpha)
            if self._looks.get(ln.key) == look:
                continue
            self._looks[ln.key] = look
            self._invalidate_layers()
            col = s.colour(ln.colour)
            set_line_pen(self.curves[ln.key], make_pen(col, s.curve_width, ln.dash, alpha=alpha))
            style_label(self.crit_labels[ln.key], s, col, s.annotation_font_pt, bold=True)
        self._sync_guides(g)
        self._sync_markers(g)

    def _rebuild_legend(self) -> None:
        g = self.geometry
        s = self.style
        if g is None:
            return
        made = (s, [(ln.chip_label, ln.op_label, ln.legend, ln.colour, ln.dash) for ln in g.lines])
        if made == self._legend_from:  # (an edit moved the lines, named and drawn as before)
            return
        self._legend_from = made
        chips = list(dict.fromkeys((ln.chip_label, ln.colour) for ln in g.lines))
        ops = list(dict.fromkeys((ln.op_label, ln.dash) for ln in g.lines))
        if len({c for c, _ in chips}) > 1 and len({o for o, _ in ops}) > 1:
            # several chips and several ops: colour = chip, line style = op, listed apart
            entries = [(name, dict(pen=make_pen(s.colour(col), s.curve_width)))
                       for name, col in chips]
            entries += [(name, dict(pen=make_pen(s.neutral, s.curve_width, dash)))
                        for name, dash in ops]
        else:  # (one op: the chips' names alone say which line is which)
            one_op = len({o for o, _ in ops}) == 1 and len(chips) > 1
            entries = [(ln.chip_label if one_op else ln.legend,
                        dict(pen=make_pen(s.colour(ln.colour), s.curve_width, ln.dash)))
                       for ln in g.lines]
        self._legend_entries(entries)

    def _lay_out(self) -> None:
        """The critical labels along the x axis (stacked where they would overlap), then
        the legend."""
        g = self.geometry
        if g is not None:
            s = self.style
            x0, x1, y0, _ = self.view_range()
            px_x = max(self.vb.width(), 1.0) / max(x1 - x0, 1e-9)
            char_w = text_px(s, s.annotation_font_pt) * 0.5
            lines = [ln for ln in g.lines if ln.crit_x is not None]
            placed = focus.label_rows(lines, self.focus_op,
                                      lambda ln: (len(ln.crit_label) + 1.5) * char_w / px_x)
            for ln, row in placed:
                lab = self.crit_labels[ln.key]
                lab.setPos(ln.crit_x, y0)
                set_anchor(lab, (0.5, 1.05 + 1.0 * row))
            value = focus.place_value_marker(self, *self._value)
            crit = [(self.crit_labels[ln.key], row) for ln, row in placed]
            focus.declutter_labels(self, value, lines, crit)
        self.place_legend()

    def all_labels(self) -> list:
        """Every text label of the plot (what :mod:`.declutter` shows or hides)."""
        return [*self.crit_labels.values(), self.value_label]

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        """What the legend should not cover: the curves' drawn points (about 20 a decade,
        knees included) and the critical labels."""
        g = self.geometry
        if g is None or not g.lines:
            return np.empty(0), np.empty(0)
        pts = [_drawn(ln) for ln in g.lines]
        sx, sy = self.to_scene(np.concatenate([p[0] for p in pts]),
                               np.concatenate([p[1] for p in pts]))
        tx, ty = label_samples(self.crit_labels.values())
        return np.concatenate([sx] + tx), np.concatenate([sy] + ty)

    def _bottom_labels(self) -> list:
        return list(self.crit_labels.values())

    def _readout_text(self, x_log: float, y_log: float) -> str:
        g = self.geometry
        kind = g.y_kind if g else "si"
        dim = g.dim if g else "x"
        unit = "FLOP/s" if kind == "si" else ""
        return (f"x: {dim} = {pd.tick_label_exact(x_log, 'plain')}    "
                f"y: {pd.tick_label_exact(y_log, kind)}{unit}")

    def tooltip_at_scene(self, scene_pos) -> str | None:
        tip = self._spot_tip([self.crit_item], scene_pos)
        g = self.geometry
        if tip is not None or g is None:
            return tip
        for ln in g.lines:
            if self._curve_hit(self.curves[ln.key], scene_pos):
                return ln.tooltip
        return None
