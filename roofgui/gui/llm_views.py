"""The LLM step's views beyond the note's single step: the breakdown of a step into its parts
(:mod:`~roofgui.gui.breakdown`).

:func:`install_llm_views` is the one hook the window calls once it is built.
"""

from __future__ import annotations

from roofgui.gui.breakdown import install_breakdown


def install_llm_views(window) -> None:
    """Add the breakdown to a built main window (once)."""
    install_breakdown(window)
