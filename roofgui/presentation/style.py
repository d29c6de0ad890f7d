"""Plot styles: every colour, font, width and size the plots use.

``PlotStyle.scaled(f)`` multiplies every width, size and font by ``f``, so an
image exported at 4× the on-screen size keeps the on-screen proportions
(pyqtgraph pens are cosmetic: a 1-px pen stays 1 px at any export size).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common
# colour-vision deficiencies.  Yellow is left out (unreadable on white), and the
# bluish green / vermillion come late so they rarely sit on the green / red regions.
OKABE_ITO_LIGHT = ("#0072B2", "#E69F00", "#CC79A7", "#009E73", "#56B4E9", "#D55E00",
                   "#000000", "#999999")
# The same hues lifted for a dark background.
OKABE_ITO_DARK = ("#56B4E9", "#E69F00", "#E08FC0", "#2BC79A", "#8FD3FF", "#FF7F3F",
                  "#F0F0F0", "#AAAAAA")
# Chips 9-24 (drawn with other ridge markers and roof dashes, see .colours): two more
# groups of eight, picked farthest-first (CIEDE2000) from Paul Tol's schemes and a grid,
# each colour at least 15 (light) / 9 (dark) ΔE00 from every other of the 24, readable on
# the background, and within its group at least 6 ΔE00 apart under simulated protanopia,
# deuteranopia and tritanopia (Machado et al. 2009).  tests/test_palette.py checks it.
MORE_LIGHT = ("#6600AA", "#880022", "#666600", "#225555", "#88AA00", "#AA3377", "#8866EE",
              "#EE2244",
              "#225522", "#444466", "#886666", "#555555", "#EE8866", "#EE00EE", "#228800",
              "#448888")
MORE_DARK = ("#CCEE00", "#668800", "#6666EE", "#008888", "#EE0066", "#AAAA00", "#EE00CC",
             "#AAAAEE",
             "#997700", "#00CC00", "#AA6644", "#EEDD88", "#66EEEE", "#CCEECC", "#EE8888",
             "#668866")
PALETTE_LIGHT = OKABE_ITO_LIGHT + MORE_LIGHT
PALETTE_DARK = OKABE_ITO_DARK + MORE_DARK

_SCALED = ("tick_font_pt", "label_font_pt", "legend_font_pt", "annotation_font_pt",
           "title_font_pt", "roof_width", "link_width", "curve_width", "axis_width",
           "marker_size", "ridge_size", "marker_outline", "grid_width", "guide_width",
           "legend_padding")


@dataclass(frozen=True)
class PlotStyle:
    """Everything visual about the plots.  Colours are ``#rrggbb`` or ``#rrggbbaa``."""

    name: str = "screen-light"
    background: str = "#FFFFFF"  # or "transparent"
    foreground: str = "#222222"  # axes, tick labels, titles
    muted: str = "#6B6B6B"  # secondary text (readout, region names)
    grid_alpha: float = 0.16  # 0..1
    font_family: str = "sans-serif"
    tick_font_pt: float = 9.0
    label_font_pt: float = 10.0
    legend_font_pt: float = 9.0
    annotation_font_pt: float = 8.5
    title_font_pt: float = 13.0
    roof_width: float = 2.2
    link_width: float = 1.8
    curve_width: float = 2.0
    axis_width: float = 1.0
    grid_width: float = 1.0
    guide_width: float = 1.0  # ridge drop lines
    marker_size: float = 11.0
    marker_outline: float = 1.2
    ridge_size: float = 7.0
    palette: tuple[str, ...] = PALETTE_LIGHT
    region_red: str = "#E0453A"
    region_yellow: str = "#F2C12E"
    region_green: str = "#3BA55C"
    region_alpha: float = 0.13
    neutral: str = "#555555"  # legend samples for bound markers and line styles
    marker_edge: str = "#FFFFFF"
    legend_background: str = "#FFFFFFDD"
    legend_border: str = "#00000022"
    #: "auto" (the corner of the axes covering the least data, top-left first),
    #: or "top-left", "top-right", "bottom-left", "bottom-right"
    legend_position: str = "auto"
    legend_padding: float = 8.0
    show_readout: bool = True
    show_region_labels: bool = True

    def scaled(self, factor: float) -> "PlotStyle":
        """A copy with every width, size and font multiplied by ``factor``."""
        if not factor > 0:
            raise ValueError(f"scale factor must be positive (got {factor!r})")
        return replace(self, **{f: getattr(self, f) * factor for f in _SCALED})

    def colour(self, slot: int) -> str:
        return self.palette[slot % len(self.palette)]

    def region_colour(self, kind: str) -> str:
        return {"red": self.region_red, "yellow": self.region_yellow,
                "green": self.region_green}[kind]

    @property
    def is_dark(self) -> bool:
        bg = self.background
        if not bg.startswith("#") or len(bg) < 7:
            return False
        r, g, b = (int(bg[i:i + 2], 16) for i in (1, 3, 5))
        return (0.299 * r + 0.587 * g + 0.114 * b) < 128


SCREEN_LIGHT = PlotStyle()

SCREEN_DARK = PlotStyle(
    name="screen-dark",
    background="#1E1F22",
    foreground="#E6E6E6",
    muted="#A0A0A0",
    grid_alpha=0.22,
    palette=PALETTE_DARK,
    region_red="#FF5A4E",
    region_yellow="#FFD23F",
    region_green="#4CD07D",
    region_alpha=0.14,
    neutral="#BBBBBB",
    marker_edge="#1E1F22",
    legend_background="#26282BDD",
    legend_border="#FFFFFF22",
)

#: For slides: white background, large type, thick lines, colour-blind-safe palette.
#: Sizes are for a 1920×1080 image rendered at 96 dpi; export scales from there.
SLIDE = PlotStyle(
    name="slide",
    background="#FFFFFF",
    foreground="#111111",
    muted="#555555",
    grid_alpha=0.18,
    tick_font_pt=16.0,
    label_font_pt=19.0,
    legend_font_pt=16.0,
    annotation_font_pt=15.0,
    title_font_pt=24.0,
    roof_width=4.5,
    link_width=3.5,
    curve_width=4.0,
    axis_width=2.0,
    grid_width=1.5,
    guide_width=1.8,
    marker_size=20.0,
    marker_outline=2.0,
    ridge_size=12.0,
    region_alpha=0.15,
    legend_background="#FFFFFFE6",
    legend_padding=14.0,
    show_readout=False,
)


def screen_style(palette_is_dark: bool) -> PlotStyle:
    """The on-screen style matching the application's light or dark palette."""
    return SCREEN_DARK if palette_is_dark else SCREEN_LIGHT


def style_fields() -> list[str]:
    return [f.name for f in fields(PlotStyle)]
