"""The sweep's critical guides (the dotted line under each critical marker) drawn by one
item.

A guide is one segment: from its critical marker straight down, past the bottom of the
view.  As a line item of its own (a ``_Curve`` drawn through a canvas) each guide an edit
moves paid ``setData`` — bounds, view notices, its canvas's bookkeeping, ~30 µs — and the
guides the edit left alone were blitted from a kept picture the size of the view.  A
:class:`GuideLayer` holds every guide as a few numbers and a pen and draws them all, as
the line items drew them (``drawLine`` with the pen, antialiased, in the view's
coordinates): an edit sets eight guides' numbers and the layer repaints.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from roofgui.plotting.plot_items import _LayerMark, _MarkLayer

__all__ = ["GuideLayer", "Guide"]

_AA = QtGui.QPainter.RenderHint.Antialiasing


class Guide(_LayerMark):
    """One guide of a :class:`GuideLayer`: the segment from ``(x, y0)`` down to ``(x, y1)``
    (``y1 <= y0``) in the view's coordinates, drawn with ``pen`` while shown.  ``getData``
    answers as a line item's does."""

    def __init__(self, layer: "GuideLayer") -> None:
        self._layer = layer
        self.x = self.y0 = self.y1 = 0.0
        self.pen = QtGui.QPen(QtCore.Qt.PenStyle.NoPen)
        self._visible = False

    def set(self, x: float, y0: float, y1: float) -> None:
        """The segment's place (a repaint when it moves)."""
        x, y0, y1 = float(x), float(y0), float(y1)
        if (x, y0, y1) != (self.x, self.y0, self.y1):
            self.x, self.y0, self.y1 = x, y0, y1
            if self._visible:
                self._layer.update()

    def setPen(self, pen: QtGui.QPen) -> None:  # noqa: N802 (a line item's name)
        self.pen = pen
        if self._visible:
            self._layer.update()

    def getData(self):  # noqa: N802 (a line item's name)
        return np.array([self.x, self.x]), np.array([self.y0, self.y1])


class GuideLayer(_MarkLayer):
    """Draws its guides in the order :meth:`set_order` gives (else as made), antialiased,
    each with its pen, in the view box's coordinates (a :class:`_ViewLayer`: the view's
    rectangle, never under the mouse, in no auto-range)."""

    def __init__(self, vb: pg.ViewBox, z: float) -> None:
        self.guides: list[Guide] = []
        self._order: list[Guide] | None = None
        super().__init__(vb, z)

    def new_guide(self) -> Guide:
        g = Guide(self)
        self.guides.append(g)
        return g

    def set_order(self, guides: list[Guide]) -> None:
        """The drawing order (guides not listed are not drawn)."""
        if self._order is None or len(guides) != len(self._order) or any(
                a is not b for a, b in zip(guides, self._order)):
            self._order = list(guides)
            self.update()

    def paint_marks(self, p, opt, widget):
        """Each shown guide from its top (``y0``, where its dots start) down to a few
        pixels past the bottom of the view (a guide runs far below it: a vector export
        then carries no line outside the plot, as its other lines are cut to the view)."""
        p.setRenderHint(_AA, True)
        line = QtCore.QLineF
        scale = abs(p.transform().m22())
        floor = self._rect.top() - (4.0 / scale if scale > 0 else 0.0)  # (the view's least y)
        for g in self.guides if self._order is None else self._order:
            if g._visible and g.y0 >= floor:
                p.setPen(g.pen)
                p.drawLine(line(g.x, g.y0, g.x, max(g.y1, floor)))
