"""Where an exported picture's title, plot and caption go, and the fonts they use.

The title goes above the plot (wrapped to the width), the optional caption (op, shapes, dtypes, chips,
sources; :mod:`roofgui.presentation.caption`) below, wrapped to the picture's
width and cut to at most 28 % of its height.  Sizes scale with the picture
(:func:`~roofgui.export.options.scale_factor`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from roofgui.export.options import ExportError, ExportOptions

#: The most lines a title wraps to (a longer one ends in "…").
TITLE_LINES = 3


def qcolor(text: str):
    """A style colour (``#rrggbb``, ``#rrggbbaa``, a name or ``transparent``) as a QColor."""
    from PySide6.QtGui import QColor

    if text == "transparent":
        return QColor(0, 0, 0, 0)
    if text.startswith("#") and len(text) == 9:  # #rrggbbaa
        c = QColor(text[:7])
        c.setAlpha(int(text[7:9], 16))
        return c
    return QColor(text)


def make_font(family: str, px: float, bold: bool = False):
    """A QFont of ``family`` (a CSS-like list) at ``px`` pixels, unhinted."""
    from PySide6.QtGui import QFont

    f = QFont()
    fam = [x.strip() for x in family.split(",") if x.strip()] if family else []
    if fam and fam != ["sans-serif"]:
        f.setFamilies(fam)
    f.setStyleHint(QFont.StyleHint.SansSerif)
    f.setPixelSize(max(1, round(px)))
    f.setBold(bold)
    f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return f


def wrap(text: str, metrics, width: float) -> list[str]:
    """Greedy word wrap of one paragraph to ``width`` pixels (a word too wide is elided)."""
    from PySide6.QtCore import Qt

    lines: list[str] = []
    cur = ""
    for w in text.split(" "):
        trial = w if not cur else f"{cur} {w}"
        if metrics.horizontalAdvance(trial) <= width or not cur:
            cur = trial
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    return [metrics.elidedText(ln, Qt.TextElideMode.ElideRight, int(width))
            if metrics.horizontalAdvance(ln) > width else ln for ln in lines]


@dataclass
class PictureLayout:
    """The picture's parts in picture pixels (QRectF), with the fonts of its text."""

    title_font: object
    caption_font: object
    plot_rect: object = None
    title_lines: list[str] = field(default_factory=list)
    title_rect: object = None
    caption_lines: list[str] = field(default_factory=list)
    caption_rect: object = None
    caption_text: str = ""


def lay_out(opts: ExportOptions, style, factor: float, dpi: float, caption=None) -> PictureLayout:
    """Place the title, the caption (a :class:`~roofgui.presentation.caption.Caption`, or
    None) and the plot in an ``opts.width`` × ``opts.height`` picture."""
    from PySide6.QtCore import QRectF

    W, H = opts.width, opts.height
    slide = opts.style == "slide"
    pad = (40.0 if slide else 20.0) * factor
    gap = (18.0 if slide else 10.0) * factor
    top, bottom = pad * 0.8, H - pad * 0.8
    left, right = pad * 0.6, W - pad * 0.6
    px = dpi / 72.0  # the style's points, rescaled for the dpi, back to design pixels
    lay = PictureLayout(
        title_font=make_font(style.font_family, style.title_font_pt * px * (1.25 if slide else 1.1),
                             bold=True),
        caption_font=make_font(style.font_family,
                               style.annotation_font_pt * px * (0.82 if slide else 1.0)),
        title_rect=QRectF(), caption_rect=QRectF())
    if opts.title:
        top += _place_title(lay, opts.title, left, right, top, pad) + gap
    if caption is not None:
        bottom -= _place_caption(lay, caption, left, right, bottom, pad, H) + gap
    lay.plot_rect = QRectF(round(left), round(top), round(right - left), round(bottom - top))
    if lay.plot_rect.width() < 32 or lay.plot_rect.height() < 32:
        raise ExportError(f"{W} × {H} leaves no room for the plot; make the picture larger "
                          "or leave out the caption", "size")
    return lay


def _place_title(lay: PictureLayout, title: str, left: float, right: float, top: float,
                 pad: float) -> float:
    """Set the title's lines (wrapped to the width, at most :data:`TITLE_LINES`) and
    box; returns its height."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFontMetricsF

    fm = QFontMetricsF(lay.title_font)
    width = right - left - pad
    lines = wrap(" ".join(title.split()), fm, width)
    if len(lines) > TITLE_LINES:  # (only a title of a paragraph's length is cut)
        lines = lines[:TITLE_LINES]
        lines[-1] = fm.elidedText(lines[-1] + " …", Qt.TextElideMode.ElideRight, int(width))
    lay.title_lines = lines
    h = fm.height() + fm.lineSpacing() * (len(lines) - 1)
    lay.title_rect = QRectF(left + pad * 0.4, top, right - left - pad * 0.4, h)
    return h


def _place_caption(lay: PictureLayout, caption, left: float, right: float, bottom: float,
                   pad: float, height: int) -> float:
    """Set the caption's wrapped lines and box above ``bottom``; returns its height."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFontMetricsF

    lay.caption_text = caption.text()
    fm = QFontMetricsF(lay.caption_font)
    width = right - left - pad * 0.4
    lines: list[str] = []
    for para in caption.paragraphs():
        lines += wrap(para, fm, width)
    max_lines = max(1, int((height * 0.28) // fm.lineSpacing()))
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = fm.elidedText(lines[-1] + " …", Qt.TextElideMode.ElideRight, int(width))
    lay.caption_lines = lines
    h = fm.lineSpacing() * len(lines)
    lay.caption_rect = QRectF(left + pad * 0.4, bottom - h, width, h)
    return h
