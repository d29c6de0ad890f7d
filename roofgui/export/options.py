"""What decides an exported picture besides the scenario: plot, size, style, format.

Qt-free but for :func:`screen_dpi` and the styles :func:`export_style` scales
(both import lazily), so the command line can check its options before Qt loads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from roofgui.model.errors import ModelError

#: Size presets offered by the dialog: (label, width, height).
PRESETS = (("1080p (1920 × 1080)", 1920, 1080),
           ("1440p (2560 × 1440)", 2560, 1440),
           ("4K (3840 × 2160)", 3840, 2160))
DEFAULT_SIZE = (1920, 1080)
#: The size the styles are designed for; other sizes scale from it.
BASE_SIZE = (1920, 1080)
MIN_SIDE = 64
MAX_SIDE = 10000
MAX_PIXELS = 60_000_000  # 10000 × 6000; a 4K picture is 8.3 M

PLOTS = ("roofline", "sweep")
STYLES = ("slide", "screen", "screen-dark")
FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", ".csv": "csv"}

#: Points to pixels at the 96 dpi every export is rendered at.
PX_PER_PT = 96.0 / 72.0


class ExportError(ModelError):
    """An export that cannot be done: bad size, unknown format, unwritable path."""


@dataclass(frozen=True)
class ExportOptions:
    """Everything that decides the picture besides the scenario."""

    plot: str = "roofline"
    width: int = DEFAULT_SIZE[0]
    height: int = DEFAULT_SIZE[1]
    style: str = "slide"
    title: str | None = None
    caption: bool = False
    transparent: bool = False

    def validated(self) -> "ExportOptions":
        if self.plot not in PLOTS:
            raise ExportError(f"unknown plot {self.plot!r} (roofline or sweep)", "plot")
        if self.style not in STYLES:
            raise ExportError(f"unknown style {self.style!r} ({', '.join(STYLES)})", "style")
        check_size(self.width, self.height)
        title = self.title.strip() if isinstance(self.title, str) else None
        return replace(self, title=title or None, width=int(self.width), height=int(self.height))


def check_size(width, height) -> None:
    for name, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise ExportError(f"must be a whole number of pixels (got {v!r})", name)
        if not MIN_SIDE <= v <= MAX_SIDE:
            raise ExportError(f"must be between {MIN_SIDE} and {MAX_SIDE} pixels (got {v})", name)
    if width * height > MAX_PIXELS:
        raise ExportError(f"{width} × {height} is too large (at most {MAX_PIXELS:,} pixels)", "size")


#: The screen styles are the window's: a 1280 × 720 picture looks like the plot in a window.
SCREEN_BASE_SIZE = (1280, 720)


def scale_factor(width: int, height: int, style: str = "slide") -> float:
    """How much bigger than its style's design size a picture is (fitting both sides):
    1920 × 1080 for the slide style, 1280 × 720 for the screen styles."""
    bw, bh = BASE_SIZE if style == "slide" else SCREEN_BASE_SIZE
    return min(width / bw, height / bh)


_FONT_FIELDS = ("tick_font_pt", "label_font_pt", "legend_font_pt", "annotation_font_pt",
                "title_font_pt")


def export_style(name: str, width: int, height: int, transparent: bool = False,
                 dpi: float = 96.0):
    """The plot style for a picture: the named style, scaled to the size; transparent on request.

    The styles' fonts are in points, designed for 96 dpi.  On a screen whose
    logical dpi differs (72 on macOS, 120 or 144 on some desktops) the plot lays
    its text out at that dpi, so the fonts are rescaled by ``96 / dpi`` and the
    picture is painted at ``dpi``: the text comes out the same number of pixels
    everywhere.
    """
    from roofgui.presentation import style as st

    base = {"slide": st.SLIDE, "screen": st.SCREEN_LIGHT, "screen-dark": st.SCREEN_DARK}[name]
    s = base.scaled(scale_factor(width, height, name))
    if dpi and abs(dpi - 96.0) > 1e-6:
        s = replace(s, **{f: getattr(s, f) * 96.0 / dpi for f in _FONT_FIELDS if hasattr(s, f)})
    changes = {}
    if transparent:
        changes["background"] = "transparent"
    if getattr(s, "show_readout", False):
        changes["show_readout"] = False  # the mouse readout has no place in a picture
    return replace(s, **changes) if changes else s


def screen_dpi() -> float:
    """The logical dpi text is laid out at (96 offscreen and on most Linux desktops)."""
    from PySide6.QtGui import QGuiApplication

    screen = QGuiApplication.primaryScreen()
    dpi = float(screen.logicalDotsPerInchY()) if screen is not None else 96.0
    return dpi if dpi > 0 else 96.0


def format_for(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    try:
        return FORMATS[suffix]
    except KeyError:
        raise ExportError(f"{str(path)!r}: unknown file type {suffix or '(none)'!r} "
                          "(use .png, .svg, .pdf or .csv)", "output") from None
