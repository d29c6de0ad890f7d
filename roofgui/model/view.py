"""A scenario's view: the roofline's zoom and the plot it opens on (saved, never undone)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from roofgui.model.errors import ScenarioError

#: The largest |log10| a view may reach: zoom stops there, and a saved view past it is reset.
VIEW_LIMIT = 40.0


@dataclass
class ViewSpec:
    roofline: list[float] | None = None  # [x0, x1, y0, y1] in log10 units
    tab: str | None = None  # the plot it opens on (one of VIEW_TABS; None: the one on show)


#: The plots a scenario can open on.
VIEW_TABS = ("roofline", "sweep")


def view_in_range(r: Any) -> bool:
    """Whether ``r`` is a view the plots can draw: 4 finite numbers within ±VIEW_LIMIT, ordered."""
    try:
        ok = len(r) == 4 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                 and math.isfinite(v) and abs(v) <= VIEW_LIMIT for v in r)
    except (TypeError, OverflowError):  # not a list; an integer past what a float holds
        return False
    return ok and r[0] < r[1] and r[2] < r[3]


def parse_view(view: dict, where: str, notices: list[str]) -> ViewSpec:
    """The saved zoom; one the plots cannot draw is reset to fit, with a notice (never refused)."""
    unknown = sorted(set(view) - {"roofline", "tab"})
    if unknown:
        raise ScenarioError(where, f"view.{unknown[0]}", "unknown key (allowed: roofline, tab)")
    tab = view.get("tab")
    if tab is not None and tab not in VIEW_TABS:
        notices.append(f"{where}: view.tab must be one of {', '.join(VIEW_TABS)}; "
                       f"it opens on the roofline instead")
        tab = None
    r = view.get("roofline")
    if r is None:
        return ViewSpec(tab=tab)
    if not isinstance(r, list) or not view_in_range(r):
        notices.append(f"{where}: view.roofline is not a view that can be drawn "
                       f"(4 numbers within ±{VIEW_LIMIT:g}, log10); the plot is fitted instead")
        return ViewSpec(tab=tab)
    return ViewSpec([float(v) for v in r], tab)
