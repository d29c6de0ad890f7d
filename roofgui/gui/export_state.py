"""What an export needs from the window, and the export options kept between sessions
(what Ctrl+Shift+C copies)."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication, QImage

from roofgui.export.render import DEFAULT_SIZE, ExportError, ExportOptions, Figure
from roofgui.gui.document import app_settings
from roofgui.model.scenario import Scenario

SETTINGS_PREFIX = "export/"


@dataclass
class WindowState:
    """What an export needs from the window."""

    scenario: Scenario
    catalog: object
    plot: str  # the visible tab: "roofline" or "sweep"
    path: Path | None = None  # the scenario's file, for suggesting a name and folder


def window_state(window) -> WindowState:
    """The scenario as the window shows it (pending edits applied), its catalog and tab."""
    live = getattr(window, "live", None)
    if live is not None and hasattr(live, "flush"):
        live.flush()
    doc = getattr(window, "doc", None) or getattr(window, "document")
    scenario = copy.deepcopy(doc.scenario)
    plot = "roofline"
    current = getattr(window, "current_plot", None)
    if callable(current):
        shown = current()
        # (the roofline first: asking for a sweep plot the window has not built builds it)
        if shown is not getattr(window, "roofline_plot", object()) and any(
                shown is getattr(window, name, object()) for name in ("sweep_plot", "llm_sweep_plot")):
            plot = "sweep"
    return WindowState(scenario, window.catalog, plot, getattr(doc, "path", None))


def settings() -> QSettings:
    return app_settings()


def saved_options(plot: str) -> ExportOptions:
    """The options last used in the dialog (what Ctrl+Shift+C copies)."""
    s = settings()

    def get(key, default, typ):
        v = s.value(SETTINGS_PREFIX + key, default)
        try:
            if typ is bool:
                return v if isinstance(v, bool) else str(v).lower() in ("1", "true", "yes")
            return typ(v)
        except (TypeError, ValueError):
            return default

    opts = ExportOptions(plot=plot, width=get("width", DEFAULT_SIZE[0], int),
                         height=get("height", DEFAULT_SIZE[1], int),
                         style=get("style", "slide", str), title=None,
                         caption=get("caption", False, bool),
                         transparent=get("transparent", False, bool))
    try:
        return opts.validated()
    except ExportError:
        return ExportOptions(plot=plot)


def save_options(opts: ExportOptions, fmt: str | None = None) -> None:
    s = settings()
    s.setValue(SETTINGS_PREFIX + "width", opts.width)
    s.setValue(SETTINGS_PREFIX + "height", opts.height)
    s.setValue(SETTINGS_PREFIX + "style", opts.style)
    s.setValue(SETTINGS_PREFIX + "caption", opts.caption)
    s.setValue(SETTINGS_PREFIX + "transparent", opts.transparent)
    if fmt:
        s.setValue(SETTINGS_PREFIX + "format", fmt)


def render_options(state: WindowState, opts: ExportOptions) -> QImage:
    with Figure(state.scenario, state.catalog, opts) as fig:
        return fig.image()


def copy_to_clipboard(window, options: ExportOptions | None = None) -> QImage:
    """Ctrl+Shift+C: the visible plot, drawn as the export dialog last drew it, on the clipboard."""
    state = window_state(window)
    opts = options or saved_options(state.plot)
    opts = replace(opts, plot=state.plot)
    img = render_options(state, opts)
    QGuiApplication.clipboard().setImage(img)
    return img


def suggest_name(state: WindowState, plot: str, fmt: str) -> str:
    base = state.scenario.title or (state.path.stem if state.path else "roofline")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-._").lower()[:60] or "roofline"
    kind = plot if fmt != "csv" else ("results" if plot == "roofline" else "sweep-data")
    return f"{slug}-{kind}.{fmt}"
