"""What the roofline's overlays share (measured kernels, an LLM step's parts, memory levels):
spots of their own on the plot, a view widened to show them unless the user has zoomed, and
hover tooltips joined to the plot's own.  Each overlay adds its items through the plot's
public API and never touches the plot's items."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

#: Room around an overlay's points when the view is widened to show them (log10 units).
MARGIN = 0.25


class Overlay(QtCore.QObject):
    """An overlay on ``plot``.  Subclasses say which points the view must show
    (:meth:`cover_xy`) and which scatters' spots carry tooltips (:meth:`tip_items`)."""

    def __init__(self, plot) -> None:
        super().__init__(plot)
        self.plot = plot
        self.hover_tip: str | None = None  # the tooltip the mouse last showed
        plot.scene().sigMouseMoved.connect(self.on_mouse_moved)

    def cover_xy(self) -> list[tuple[float, float]]:
        """(x, y) in log10 units of every point the view should show."""
        return []

    def tip_items(self) -> list:
        """The scatters whose spots' data are tooltips."""
        return []

    def cover(self) -> None:
        """Widen the view to show every point, unless the user has zoomed."""
        pts = self.cover_xy()
        if not pts or self.plot.user_view:
            return
        x0, x1, y0, y1 = self.plot.view_range()
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        if min(xs) >= x0 and max(xs) <= x1 and min(ys) >= y0 and max(ys) <= y1:
            return
        self.plot.vb.setRange(xRange=(min(x0, min(xs) - MARGIN), max(x1, max(xs) + MARGIN)),
                              yRange=(min(y0, min(ys) - MARGIN), max(y1, max(ys) + MARGIN)),
                              padding=0.0)

    def tooltip_at_scene(self, scene_pos) -> str | None:
        """The tooltips of every spot under a scene position (None: none)."""
        hits = [h for item in self.tip_items() if item.isVisible()
                for h in item.pointsAt(item.mapFromScene(scene_pos))]
        return "<br><hr>".join(h.data() for h in hits) or None

    def tooltip_at(self, x_log: float, y_log: float) -> str | None:
        """The tooltip hovering at view point (log10 x, log10 y) shows, if any."""
        return self.tooltip_at_scene(self.plot.vb.mapViewToScene(QtCore.QPointF(x_log, y_log)))

    def on_mouse_moved(self, scene_pos) -> None:
        """Show the tooltip of the spots under the mouse (after the plot's own, which it
        joins when an analytic point is under the mouse too)."""
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
