"""The vector files: a picture painted onto Qt's SVG generator or PDF writer.

SVG comes from ``QSvgGenerator`` (SVG 1.1, so the axes' clipping is written as
clip paths; pyqtgraph's own SVG exporter crashes with PySide6 ≥ 6.11) and is
post-processed by :mod:`roofgui.export.svg`.  PDF comes from ``QPdfWriter``:
one page the size of the picture at the picture's dpi.
"""

from __future__ import annotations

from typing import Callable

from roofgui.export.svg import flatten_svg, font_fallbacks, svg_pixel_size


def _buffer():
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    return data, buf


def _painted(device, paint: Callable) -> None:
    from PySide6.QtGui import QPainter

    p = QPainter(device)
    try:
        paint(p)
    finally:
        p.end()


def svg_bytes(paint: Callable, width: int, height: int, dpi: float, title: str,
              description: str) -> bytes:
    """The SVG of what ``paint(painter)`` draws on a ``width`` × ``height`` page."""
    from PySide6.QtCore import QRect, QSize
    from PySide6.QtSvg import QSvgGenerator

    data, buf = _buffer()
    gen = QSvgGenerator(QSvgGenerator.SvgVersion.Svg11)  # 1.1: clip paths are written
    gen.setOutputDevice(buf)
    gen.setSize(QSize(width, height))
    gen.setViewBox(QRect(0, 0, width, height))
    gen.setResolution(round(dpi))
    gen.setTitle(title)
    gen.setDescription(description)
    _painted(gen, paint)
    buf.close()
    return font_fallbacks(flatten_svg(svg_pixel_size(bytes(data.data()), width, height)),
                          _sans_family())


def _sans_family() -> str:
    """The family Qt draws its generic sans-serif font with here (``DejaVu Sans`` …)."""
    from PySide6.QtGui import QFont, QFontInfo

    f = QFont()
    f.setStyleHint(QFont.StyleHint.SansSerif)
    return QFontInfo(f).family()


def pdf_bytes(paint: Callable, width: int, height: int, dpi: float, title: str) -> bytes:
    """A one-page PDF of what ``paint(painter)`` draws on a ``width`` × ``height`` page."""
    from PySide6.QtCore import QMarginsF, QSizeF
    from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter

    data, buf = _buffer()
    writer = QPdfWriter(buf)
    dpi = round(dpi)
    writer.setResolution(dpi)
    size = QPageSize(QSizeF(width * 72 / dpi, height * 72 / dpi), QPageSize.Unit.Point, "",
                     QPageSize.SizeMatchPolicy.ExactMatch)
    writer.setPageLayout(QPageLayout(size, QPageLayout.Orientation.Portrait,
                                     QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Point))
    writer.setTitle(title)
    writer.setCreator("Roofline Explorer")

    def scaled(p) -> None:  # the page is W × H at the dpi; guard against its rounding
        sx, sy = writer.width() / width, writer.height() / height
        if abs(sx - 1) > 1e-3 or abs(sy - 1) > 1e-3:
            p.scale(sx, sy)
        paint(p)

    _painted(writer, scaled)
    buf.close()
    return bytes(data.data())
