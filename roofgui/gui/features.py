"""The window's features beyond its own plots: measured kernels (:mod:`.measured`), memory
levels (:mod:`.levels`), and the LLM step's breakdown and frontier (:mod:`.llm_views`).

:meth:`MainWindow.install_features <roofgui.gui.main_window.MainWindow.install_features>`
imports this module and calls :func:`install_features` once the window is built — on a cold
start after the plot's first paint, since these modules and their widgets cost about a tenth
of a second that a user does not need to wait for to see the plot.
"""

from __future__ import annotations

from roofgui.gui.levels import install_levels
from roofgui.gui.llm_views import install_llm_views
from roofgui.gui.measured import drag_enter_measured, drop_measured, install_measured

__all__ = ["drag_enter_measured", "drop_measured", "install_features"]


def install_features(window) -> None:
    """Add the measured kernels, the memory levels and the LLM views to a built window."""
    install_measured(window)
    install_levels(window)
    install_llm_views(window)
