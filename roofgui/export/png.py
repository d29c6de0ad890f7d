"""PNG files through Qt's own writer (``QImage.save``)."""

from __future__ import annotations

from roofgui.export.options import ExportError


def encode_png(img, quality: int = -1) -> bytes:
    """``img`` (a QImage) as PNG bytes, written by Qt; ``quality`` as ``QImage.save`` takes
    it (0-100: higher is faster and larger; -1: Qt's default)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, "PNG", quality):
        raise ExportError("could not encode the picture as PNG")
    buf.close()
    return bytes(data.data())
