"""Export the roofline or sweep plot: PNG, SVG, PDF or CSV files and the clipboard.

Every picture is laid out and painted by :class:`~roofgui.export.figure.Figure`,
so the window's export dialog, the clipboard and ``roofgui export`` give the same
picture.  Every file is written to a temporary file beside the target and renamed
over it (:func:`roofgui.model.paths.atomic_write`): it is complete or untouched.
"""

from __future__ import annotations

from pathlib import Path

from roofgui.export.figure import Figure
from roofgui.export.options import (DEFAULT_SIZE, MAX_SIDE, MIN_SIDE, PRESETS,  # noqa: F401
                                    ExportError, ExportOptions, format_for)
from roofgui.export.png import encode_png  # noqa: F401
from roofgui.model.paths import atomic_write
from roofgui.model.scenario import Scenario


def render_image(scenario: Scenario, catalog, plot: str = "roofline", width: int = 1920,
                 height: int = 1080, style: str = "slide", title: str | None = None,
                 caption: bool = False, transparent: bool = False):
    """The picture as a ``width`` × ``height`` QImage (ARGB32)."""
    opts = ExportOptions(plot, width, height, style, title, caption, transparent)
    with Figure(scenario, catalog, opts) as fig:
        return fig.image()


def render_bytes(fmt: str, scenario: Scenario, catalog, options: ExportOptions) -> bytes:
    """The encoded file content for ``fmt`` (``png``, ``svg``, ``pdf`` or ``csv``)."""
    if fmt == "csv":
        from roofgui.export.csv import table_csv

        return table_csv(scenario, catalog, options.plot).encode("utf-8")
    if fmt not in ("png", "svg", "pdf"):
        raise ExportError(f"unknown format {fmt!r}", "format")
    with Figure(scenario, catalog, options) as fig:
        return {"png": fig.png_bytes, "svg": fig.svg_bytes, "pdf": fig.pdf_bytes}[fmt]()


def export_file(path: str | Path, scenario: Scenario, catalog, plot: str = "roofline",
                width: int = 1920, height: int = 1080, style: str = "slide",
                title: str | None = None, caption: bool = False,
                transparent: bool = False) -> Path:
    """Write the picture (PNG, SVG, PDF) or the table (CSV) chosen by ``path``'s suffix.

    Raises :class:`ExportError` for a bad suffix or size and ``OSError`` when the
    file cannot be written.
    """
    p = Path(path)
    fmt = format_for(p)
    opts = ExportOptions(plot, width, height, style, title, caption, transparent).validated()
    if fmt == "csv":  # streamed: a large sweep is written a slice at a time
        from roofgui.export.csv import table_csv_chunks

        atomic_write(p, (text.encode("utf-8") for text in table_csv_chunks(scenario, catalog, plot)))
    else:
        atomic_write(p, render_bytes(fmt, scenario, catalog, opts))
    return p


def copy_plot_to_clipboard(scenario: Scenario, catalog=None, plot: str = "roofline",
                           width: int = 1920, height: int = 1080, style: str = "slide",
                           title: str | None = None, caption: bool = False,
                           transparent: bool = False):
    """Put the picture on the clipboard (as an image); returns the QImage."""
    from PySide6.QtWidgets import QApplication

    if catalog is None:
        from roofgui.model.catalog import Catalog

        catalog = Catalog.load()
    img = render_image(scenario, catalog, plot, width, height, style, title, caption, transparent)
    QApplication.clipboard().setImage(img)
    return img
