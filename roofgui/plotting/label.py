"""The plots' text labels: pyqtgraph's TextItem, with its text laid out by Qt's
``QTextLayout`` instead of a ``QGraphicsTextItem`` and its ``QTextDocument``.

A label's text is set on most edits (a critical B, an op's name and value); a
``QTextDocument`` takes ~40-65 us to take new text and lay it out, a ``QTextLayout``
~7 us.  The layout is the one the document would make (QTextDocument lays its text out
with QTextLayout): the same size, to the last fraction of a pixel, and the same pixels,
drawn by the label's own ``paint`` after its halo (the document's child item drew them
in a second paint).  Tests compare both against a plain pyqtgraph TextItem.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from pyqtgraph.Point import Point
from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["_Label", "LabelText"]

_MOVING = QtWidgets.QGraphicsItem.GraphicsItemChange.ItemPositionChange
_MOVED = QtWidgets.QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged
_AA = QtGui.QPainter.RenderHint.Antialiasing

#: texts laid out so far, per font: ``[(font, {text: (layouts, width, height)})]`` (see
#: :meth:`LabelText._laid_out`); a few fonts, the oldest dropped past _FONTS_MAX
_KNOWN: list[tuple[QtGui.QFont, dict]] = []
_FONTS_MAX = 16
#: texts kept per font, the oldest laid out dropped first
_TEXTS_MAX = 256


def _known(font: QtGui.QFont) -> dict:
    """The texts laid out so far in ``font`` (a font equal to it: ``QFont ==`` compares
    everything a layout reads, family to kerning and hinting)."""
    for f, known in _KNOWN:
        if f == font:
            return known
    known = {}
    _KNOWN.append((QtGui.QFont(font), known))
    if len(_KNOWN) > _FONTS_MAX:
        del _KNOWN[0]
    return known


class LabelText:
    """A label's text (its ``textItem``): plain text in one font and colour, laid out as a
    ``QGraphicsTextItem`` with the same document margin lays it out, and drawn by its label.

    It answers what pyqtgraph's TextItem and the plots ask of a ``QGraphicsTextItem``
    (``setPlainText``, ``toPlainText``, ``setFont``, ``font``, ``setDefaultTextColor``,
    ``boundingRect``, ``pos``/``setPos``, ``document().setDocumentMargin``) but is not an
    item of the scene: the label paints it.  Plain text only (``setHtml`` raises).
    """

    __slots__ = ("_owner", "_text", "_font", "_known", "_color", "_margin", "_x", "_y",
                 "_lines", "_size")

    def __init__(self, owner: QtWidgets.QGraphicsItem) -> None:
        self._owner = owner
        self._text = ""
        self._font = QtGui.QFont()
        self._known = _known(self._font)  # the texts laid out so far in this font
        self._color = QtGui.QColor(0, 0, 0)
        self._margin = 4.0  # (QTextDocument's default)
        self._x = self._y = 0.0
        self._lines: list[tuple[QtGui.QTextLayout, float]] | None = None
        self._size: tuple[float, float] = (0.0, 0.0)

    # -- what a QGraphicsTextItem answers -----------------------------------------------
    def setPlainText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if self.take_text(text):
            self._owner.update()

    def take_text(self, text: str) -> bool:
        """:meth:`setPlainText` without the owner's repaint, for an owner that places the
        text anew and then repaints once: True when the text changed (its layout is then
        made when next asked for)."""
        text = str(text)
        if text == self._text:
            return False
        self._text = text
        self._lines = None
        return True

    def toPlainText(self) -> str:  # noqa: N802
        return self._text

    def setHtml(self, html: str) -> None:  # noqa: N802
        raise TypeError("a plot label holds plain text (setText), not HTML")

    def setFont(self, font: QtGui.QFont) -> None:  # noqa: N802
        if font != self._font:
            self._font = QtGui.QFont(font)
            self._known = _known(self._font)
            self._relayout()

    def font(self) -> QtGui.QFont:
        return QtGui.QFont(self._font)

    def setDefaultTextColor(self, colour) -> None:  # noqa: N802
        colour = QtGui.QColor(colour)
        if colour != self._color:
            self._color = colour
            self._owner.update()

    def defaultTextColor(self) -> QtGui.QColor:  # noqa: N802
        return QtGui.QColor(self._color)

    def document(self) -> "LabelText":
        """Itself: the one document setting the plots change is its margin."""
        return self

    def setDocumentMargin(self, margin: float) -> None:  # noqa: N802
        if float(margin) != self._margin:
            self._margin = float(margin)
            self._relayout()

    def documentMargin(self) -> float:  # noqa: N802
        return self._margin

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        """The text's rectangle in its own coordinates: the document's size."""
        self._laid_out()
        return QtCore.QRectF(0.0, 0.0, *self._size)

    def pos(self) -> QtCore.QPointF:
        return QtCore.QPointF(self._x, self._y)

    def setPos(self, x, y=None) -> None:  # noqa: N802
        if y is None:
            x, y = x.x(), x.y()
        if (x, y) != (self._x, self._y):
            self._x, self._y = float(x), float(y)
            self._owner.update()

    def transform(self) -> QtGui.QTransform:
        return QtGui.QTransform()  # (never transformed: the label is)

    # -- layout and drawing ----------------------------------------------------------
    def _relayout(self) -> None:
        self._lines = None
        self._owner.update()

    def _laid_out(self) -> list[tuple[QtGui.QTextLayout, float]]:
        """One layout per line of text (a document's blocks), each a single line placed
        below the last; the size is the widest line's natural width and the lines'
        height rounded up, plus the margin all round (what ``QTextDocument.size`` is).

        A text laid out before in an equal font (by any label) takes those layouts, which
        are what laying it out again would give (a layout reads its text and font alone)
        and which its labels only draw: shaping a text is ~8 us (~25 us between an edit's
        paints), and the texts an edit gives the sweep's critical labels mostly came up
        before (B* = 241 on one chip, then on another; values typed and typed back).
        """
        lines = self._lines
        if lines is None:
            known = self._known
            hit = known.get(self._text)
            if hit is None:
                lines = []
                y = width = 0.0
                for part in self._text.split("\n"):
                    lay = QtGui.QTextLayout(part, self._font)
                    lay.setCacheEnabled(True)  # (the shaped glyphs, kept for drawing)
                    lay.beginLayout()
                    line = lay.createLine()
                    lay.endLayout()
                    lines.append((lay, y))
                    width = max(width, line.naturalTextWidth())
                    y += line.height()
                if len(known) >= _TEXTS_MAX:
                    del known[next(iter(known))]  # (the oldest)
                hit = known[self._text] = (lines, width, y)
            lines, width, y = hit
            m = self._margin
            self._lines = lines
            self._size = (width + 2 * m, math.ceil(y) + 2 * m)
        return lines

    def draw(self, p: QtGui.QPainter) -> None:
        """The text, where its item would draw it (painter in the label's coordinates)."""
        lines = self._laid_out()
        if not self._text:
            return
        p.setPen(self._color)
        x, y = self._x + self._margin, self._y + self._margin
        for lay, dy in lines:
            lay.draw(p, QtCore.QPointF(x, y + dy))


class _Label(pg.TextItem):
    """pyqtgraph's TextItem (anchor, angle, colour, font, fill, border, the transform that
    keeps the text upright and unscaled in a zoomed view), with its text a
    :class:`LabelText` drawn by the label itself, and without a slot of its own on the
    scene's ``sigPrepareForPaint``: its plot brings all its labels' transforms up to date
    in one slot (:meth:`~roofgui.plotting.plot_base._LogPlot._sync_label_transforms`), asking
    only those whose transform is stale.
    """

    def __init__(self, text: str = "", color=(200, 200, 200), anchor=(0, 0), border=None,
                 fill=None, angle: float = 0) -> None:
        # pyqtgraph's TextItem.__init__, with the text a LabelText, not a child item
        self.anchor = Point(anchor)
        self.rotateAxis = None
        pg.GraphicsObject.__init__(self)
        self.textItem = LabelText(self)
        self._lastTransform = None
        self._lastScene = None
        self._bounds = QtCore.QRectF()
        self.setColor(color)
        self.setText(text)
        self.fill = pg.mkBrush(fill)
        self.border = pg.mkPen(border)
        self.setAngle(angle)

    def setPlainText(self, text):  # noqa: N802 (pyqtgraph's name)
        """New text (the same text changes nothing)."""
        t = self.textItem
        if text != t._text:
            t.setPlainText(text)
            self.updateTextPos()

    def setHtml(self, html):  # noqa: N802 (pyqtgraph's name)
        raise TypeError("a plot label holds plain text (setText), not HTML")

    def updateTextPos(self) -> None:  # noqa: N802 (pyqtgraph's name)
        """The text's offset for the anchor, as pyqtgraph works it out: the text is only ever
        moved, never transformed (rotation and the view's scale are this item's own
        transform), so the offset is the text's size times the anchor."""
        t = self.textItem
        r = t.boundingRect()
        a = self.anchor
        x, y = -(r.width() * a.x()), -(r.height() * a.y())
        t.setPos(x, y)
        rect = QtCore.QRectF(x, y, r.width(), r.height())
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect

    #: the text's rectangle in this item, as pyqtgraph's ``boundingRect`` maps it (kept by
    #: :meth:`updateTextPos`, which every change of text, font, margin or anchor calls)
    _rect: QtCore.QRectF = QtCore.QRectF()

    def boundingRect(self):  # noqa: N802 (Qt's name)
        """The text's rectangle (Qt asks for it about six times per label and repaint)."""
        return QtCore.QRectF(self._rect)

    def itemChange(self, change, value):  # noqa: N802 (Qt's name)
        """A move runs no more Python: pyqtgraph would tell the view box the item's bounds
        changed, and labels (added with ``ignoreBounds``) never count in its range."""
        if change == _MOVING or change == _MOVED:
            return value
        return super().itemChange(change, value)

    def paint(self, p, *args):
        s = self.scene()
        if s is not self._lastScene:  # (pyqtgraph's first paint, less the connection)
            self._lastScene = s
            self.updateTransform()
            p.setTransform(self.sceneTransform())
        if self.border.style() != QtCore.Qt.PenStyle.NoPen \
                or self.fill.style() != QtCore.Qt.BrushStyle.NoBrush:
            aa = p.testRenderHint(_AA)
            p.setPen(self.border)
            p.setBrush(self.fill)
            p.setRenderHint(_AA, True)
            p.drawPolygon(QtGui.QPolygonF(self._rect))
            p.setRenderHint(_AA, aa)  # (the text as the view's hints draw it)
        self.textItem.draw(p)
