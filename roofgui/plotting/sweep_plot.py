"""The sweep plot: attainable FLOP/s (or time per op) against a swept dimension, one
curve per op × chip, with each curve's critical value marked.  It only draws: every
coordinate comes from :func:`roofgui.presentation.sweepgeom.sweep_geometry`.  (Moved out of
:mod:`.plots`, which re-exports it.)
"""

from __future__ import annotations

from operator import attrgetter
from typing import Mapping

import numpy as np
import pyqtgraph as pg

from roofgui.presentation import plotdata as pd
from roofgui.presentation import sweepgeom as sg
from roofgui.plotting.guide_layer import Guide, GuideLayer
from roofgui.plotting.label_layer import LayerLabel
from roofgui.plotting.plot_base import _LogPlot
from roofgui.plotting.plot_items import (_Canvas, _Curve, _face_colour, _font, _halo, _pen, _qcolor, _Spot,
                         _spot_brush, _spot_pen, _text_px)
from roofgui.presentation.style import PlotStyle

__all__ = ["SweepPlot"]

_CRIT_X = attrgetter("crit_x")  # (a sort key in C: sixteen labels on every layout)


class SweepPlot(_LogPlot):
    """Attainable FLOP/s (or time per op) against a swept dimension; one curve per op × chip.

    Introspection: ``curves[(op_index, phase, chip_id)]``, ``crit_markers[key]`` (a view
    of the line's spot in the one scatter of critical markers), ``crit_guides[key]`` (a
    :class:`~roofgui.plotting.guide_layer.Guide`, drawn by ``guide_layer``),
    ``crit_labels[key]`` (a :class:`~roofgui.plotting.label_layer.LayerLabel`: the critical
    labels are drawn by one item, ``label_layer``), ``legend``, ``geometry``.
    """

    def __init__(self, parent=None, style: PlotStyle | None = None):
        super().__init__(parent, style, "plain", "si")
        self._x_title = "B (batch, tokens)"
        self._y_title = "Attainable performance (FLOP/s)"
        self.geometry: sg.SweepGeometry | None = None
        self.curves: dict[tuple[int, str, str], _Curve] = {}
        self.crit_markers: dict[tuple[int, str, str], _Spot] = {}
        #: every line's critical marker, one spot each in one scatter (one item to update
        #: and paint, not one per line: ~40 us of Qt's and pyqtgraph's work per item)
        self.crit_item: pg.ScatterPlotItem | None = None
        self._crit_views: dict[tuple, _Spot] = {}  # a view per line key, kept while shown
        self._views_sig: tuple | None = None  # what the views were last set from
        self._mark_pens: tuple = (None, [])  # ((style, the markers' colours), their pens)
        self.crit_guides: dict[tuple[int, str, str], Guide] = {}
        #: draws the critical guides (each a segment: a line item apiece cost ~30 us of
        #: setData for each guide an edit moves)
        self.guide_layer = GuideLayer(self.vb, -20)
        self.crit_labels: dict[tuple[int, str, str], LayerLabel] = {}
        #: draws the critical labels: eight of them move and change text on every edit,
        #: which as items of their own cost ~1 ms of Qt's and pyqtgraph's work a keystroke
        self.label_layer = self._label_layer(20)
        self._colours: dict[str, int] = {}
        #: each curve's log10 points and drawing, reused for the curves an edit leaves alone
        self._memo = sg.SweepMemo()
        #: per op: the scene samples of its curves for legend placement, and their key
        self._op_samples: dict[tuple, tuple] = {}
        #: per line key, the line its items were last set from (see update_from)
        self._shown: dict[tuple, sg.SweepLine] = {}
        #: the geometry's lines' keys, in order (set by update_from with the geometry)
        self._keys: tuple | None = None
        #: on screen, the curves are drawn by a canvas (:meth:`use_screen_caches`); None:
        #: every line paints itself (exports)
        self.canvases: dict[str, _Canvas] | None = None
        #: counts the changes of which item draws which line (an item made or dropped):
        #: with the lines' keys, what the canvases' members and the items' looks follow
        self._items_rev = 0
        self._members_sig: tuple | None = None
        self._restyle_sig: tuple | None = None
        self._apply_base_style()

    def set_style(self, style: PlotStyle) -> None:
        self._restyle_sig = None  # (every look is set again, as the base class asks)
        super().set_style(style)

    def use_screen_caches(self) -> None:
        """The base class's caches, the curves drawn through a canvas that keeps the lines
        an edit leaves alone as pictures
        (:class:`~roofgui.plotting.plot_items._Canvas`), and the legend placed after the
        plot's paint (:meth:`defer_legend_placement`): for the window's plot, never for
        an export's."""
        super().use_screen_caches()
        self.defer_legend_placement()
        if self.canvases is None:
            self.canvases = {"curve": _Canvas(self.vb, 0)}
            self._sync_members()

    def _sync_members(self) -> None:
        """The guide layer's order and the curves' canvas's members: the geometry's lines."""
        g = self.geometry
        if g is None:
            return
        # the same lines in the same order, drawn by the same items: the members are as
        # they were (an edit of a dimension; building and comparing the lists was ~60 us)
        sig = (self._keys, self._items_rev, self.canvases is not None)
        if sig == self._members_sig:
            return
        self._members_sig = sig
        # in the geometry's order (op by op, as an export draws them)
        self.guide_layer.set_order([self.crit_guides[ln.key] for ln in g.lines])
        if self.canvases is not None:  # (grouped by op)
            self.canvases["curve"].set_members([(ln.key[:2], self.curves[ln.key])
                                                for ln in g.lines])

    def update_from(self, scenario, curves, colours: Mapping[str, int] | None = None) -> None:
        """Show sweep curves; the view refits when the swept dimension or y quantity changes.

        ``colours``: palette slots per chip id to keep (pass the roofline's
        ``geometry.colours`` so a chip has one colour in both plots).
        """
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
        lines = g.lines
        keys = tuple([ln.key for ln in lines])
        same_keys = keys == self._keys
        self._keys = keys
        shown = self._shown
        if not same_keys:  # lines came, went or moved: items made or dropped to match
            live = set(keys)
            for k in list(self.curves):
                if k not in live:
                    self._items_rev += 1
                    self._drop(self.curves, k, ("curve",))
                    self._drop(self.crit_guides, k, ("critguide",))
                    self._drop(self.crit_labels, k, ("critlabel",))
            for k in keys:
                if k not in self.curves:
                    self._items_rev += 1
                    self.curves[k] = self._new_curve(0, pool=("curve",) + k)
                    self.crit_guides[k] = self._new_guide(("critguide",) + k)
                    self.crit_labels[k] = self._new_layer_label(20, pool=("critlabel",) + k)
            self._shown = shown = {k: v for k, v in shown.items() if k in live}
        # The lines that are not last time's very objects (sweep_geometry hands an unchanged
        # op's lines back), and of those the ones whose items change: a line drawn from the
        # very arrays of last time, with the same marker, label and tooltip, has its items
        # as they should be.  And whether the lines are the same, in the same order, each
        # with the look it had (an edit of a dimension): then what the signatures of the
        # items' looks, the legend and the markers' views are made of is as it was, and
        # each is skipped without building its signature (which walks every line: 32 of
        # them, ~50 us an edit); the markers' too if they are on the same lines.
        moved = []
        same_look = same_marks = same_keys
        for k, ln in zip(keys, lines):
            last = shown.get(k)
            if last is ln:
                continue
            shown[k] = ln
            if last is None:
                moved.append(ln)
                continue
            if last.draw_x is not ln.draw_x or last.draw_y is not ln.draw_y \
                    or (last.crit_x, last.crit_y, last.crit_label, last.tooltip,
                        last.crit_label_shown) \
                    != (ln.crit_x, ln.crit_y, ln.crit_label, ln.tooltip, ln.crit_label_shown):
                moved.append(ln)
            if (ln.colour, ln.dash, ln.legend) != (last.colour, last.dash, last.legend):
                same_look = same_marks = False
            elif (ln.crit_x is None) != (last.crit_x is None):
                same_marks = False
        curves, guides, labels = self.curves, self.crit_guides, self.crit_labels
        # the lines' data in one go (one finite check for all: _Curve.set_many)
        self._set_curves([(("curve",) + ln.key, curves[ln.key], ln.draw_x, ln.draw_y)
                          for ln in moved])
        for ln in moved:
            k = ln.key
            has = ln.crit_x is not None
            guide, lab = guides[k], labels[k]
            if has:
                guide.set(ln.crit_x, ln.crit_y, -pd.LOG_INF)
                lab.setPlainText(ln.crit_label)  # (the same text: nothing to do)
            guide.setVisible(has)
            lab.setVisible(has and ln.crit_label_shown)  # a repeated label: once
        self._set_crit_markers(same_marks)
        self._sync_members()
        self._restyle_items(same_look)
        self._rebuild_legend(same_look)
        if refit and g.lines:
            self.fit(layout=False)
        self._layout_annotations()

    def _new_guide(self, pool) -> Guide:
        """A guide of the guide layer (one dropped earlier for the same line, if any)."""
        guide = self._pooled(pool)
        return guide if guide is not None else self.guide_layer.new_guide()

    def _set_crit_markers(self, same: bool = False) -> None:
        """Every line's critical marker as one spot of one scatter, in the lines' order (an
        op's lines together, as each marker was drawn when it was an item of its own): a
        ring in the chip's colour around the background's colour.

        ``same``: the same lines as last time, in the same order, with markers on the same
        ones, in the same colours (update_from knows): the rings' pens and the views are
        as they were, if the style and the scatter are."""
        g = self.geometry
        s = self.style
        marks = [(ln.key, ln.crit_x, ln.crit_y, ln.tooltip, ln.colour)
                 for ln in g.lines if ln.crit_x is not None]
        item = self.crit_item
        if item is None:
            item = self.crit_item = self._new_scatter(10)
        if self._changed(("data", "critmarks"), (id(s), tuple(marks))):
            n = len(marks)
            # the rings' pens: the same list while the style and the markers' colours are
            # (an edit moves markers, it does not recolour them: 32 look-ups, ~60 us)
            # (same: the markers' colours are as they were, so the look is if the style is)
            last = self._mark_pens[0]
            if not (same and last is not None and last[0] == id(s)):
                look = (id(s), tuple(m[4] for m in marks))
                if last != look:
                    self._mark_pens = (look, [_spot_pen(s.colour(m[4]), s.marker_outline * 1.5)
                                              for m in marks])
            item.set_spots([m[1] for m in marks], [m[2] for m in marks], [m[3] for m in marks],
                           ["o"] * n, pen=self._mark_pens[1],
                           brush=_spot_brush(_face_colour(s)), size=s.ridge_size * 1.3)
            item.setVisible(bool(n))
        # the views by line key: the same object for as long as the line is shown, and the
        # same index while the same lines, in the same order, have a marker
        last = self._views_sig
        if same and last is not None and last[0] == id(item):
            return  # (the same lines with markers, in the same order: the same views)
        sig = (id(item), self._keys, tuple(m[0] for m in marks))
        if sig == last:
            return
        self._views_sig = sig
        at = {m[0]: i for i, m in enumerate(marks)}
        views = {}
        for ln in g.lines:
            v = self._crit_views.get(ln.key)
            if v is None:
                v = self._crit_views[ln.key] = _Spot(item, 0)
            i = at.get(ln.key)
            v.item, v.index, v.live = item, (i or 0), i is not None
            views[ln.key] = v
        for key, v in self._crit_views.items():
            if key not in views:
                v.live = False
        self.crit_markers = views

    def _restyle_items(self, same: bool = False) -> None:
        """Each line's items in the line's colour and dash.  ``same``: the same lines as
        last time, in the same order, in the same colours and dashes (update_from knows)."""
        s = self.style
        g = self.geometry
        if g is None:
            return
        # the same style, items and lines' colours and dashes: every item has its look (each
        # line's check below, for 32 lines, was ~60 us an edit)
        last = self._restyle_sig
        if same and last is not None and last[0] == id(s) and last[1] == self._items_rev:
            return  # (the signature would be last's: its lines' part is the same)
        sig = (id(s), self._items_rev, tuple((ln.key, ln.colour, ln.dash) for ln in g.lines))
        if sig == last:
            return
        self._restyle_sig = sig
        for ln in g.lines:
            col = s.colour(ln.colour)
            if not self._changed(("style", "curve") + ln.key, (id(s), col, ln.dash)):
                continue
            self.curves[ln.key].setPen(_pen(col, s.curve_width, ln.dash))
            self.crit_guides[ln.key].setPen(_pen(col, s.guide_width, "dot", alpha=0.75))
            lab = self.crit_labels[ln.key]
            lab.setColor(_qcolor(col))
            lab.setFont(_font(s, s.annotation_font_pt, bold=True))
            lab.fill = _halo(s)

    def _rebuild_legend(self, same: bool = False) -> None:
        """The legend's entries.  ``same``: the same lines as last time, in the same order,
        with the same legends, colours and dashes (update_from knows)."""
        g = self.geometry
        s = self.style
        if g is None:
            return
        last = self._legend_signature
        if same and last and last[1] == id(s):
            return  # (the signature would be last's: its lines' part is the same)
        sig = (tuple((ln.key, ln.legend, ln.colour, ln.dash) for ln in g.lines), id(s))
        if sig == last:
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
            lines = sorted([ln for ln in g.lines if ln.crit_x is not None and ln.crit_label_shown],
                           key=_CRIT_X)
            widths = [(len(ln.crit_label) + 1.5) * char_w / px_x for ln in lines]
            rows = pd.stack_rows([ln.crit_x for ln in lines], widths)
            labels = self.crit_labels
            for ln, row in zip(lines, rows):
                lab = labels[ln.key]
                ay = 1.05 + 1.0 * row
                if ln.crit_x != lab._x or y0 != lab._y or ay != lab._ay or lab._ax != 0.5:
                    lab.place(ln.crit_x, y0, 0.5, ay)  # (in place already: not called)
        self._place_legend()

    def _obstacles(self) -> tuple[np.ndarray, np.ndarray]:
        parts = self._obstacle_parts()
        return (np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts]))

    def _obstacle_parts(self) -> list[tuple]:
        """What the legend should not cover: each op's curves sampled along their length
        (keyed: the same while that op's drawing and the view are, so an edit of one op
        samples that op's curves alone), then the critical labels."""
        g = self.geometry
        if g is None or not g.lines:
            return [(None, np.empty(0), np.empty(0))]
        x0, x1, y0, y1 = self.view_range()
        m = self._scene_matrix()
        groups: dict[tuple, list] = {}
        for ln in g.lines:
            groups.setdefault(ln.key[:2], []).append((ln.draw_x, ln.draw_y))
        parts, kept = [], {}
        for op, arrays in groups.items():
            key = (m, x0, x1, y0, y1, op, tuple((id(a), id(b)) for a, b in arrays))
            hit = self._op_samples.get(op)
            if hit is None or hit[0] != key or any(
                    a is not c or b is not d for (a, b), (c, d) in zip(hit[1], arrays)):
                dx, dy = pd.densify_many([a for a, _ in arrays], [b for _, b in arrays],
                                         (x1 - x0) / 150.0)
                hit = (key, arrays, *self._to_scene(dx, dy, m))
            kept[op] = hit
            parts.append((key, hit[2], hit[3]))
        self._op_samples = kept  # (holding the arrays keeps their ids their own)
        tx, ty = self._label_samples(self.crit_labels.values())
        parts.append((None, np.concatenate([np.empty(0)] + tx), np.concatenate([np.empty(0)] + ty)))
        return parts

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
        tip = self._spot_tip([self.crit_item] if self.crit_item is not None else [], scene_pos)
        g = self.geometry
        if tip is not None or g is None:
            return tip
        for ln in g.lines:
            if self._curve_hit(self.curves[ln.key], scene_pos):
                return ln.tooltip
        return None
