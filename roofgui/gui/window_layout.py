"""The main window's layout kept between launches, its default dock sizes, and the scenario
files dropped on it."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt


def restore_layout(w, s: QSettings) -> bool:
    """The window's geometry, docks and tab as last saved; True when the docks were restored."""
    geo = s.value("window/geometry")
    state = s.value("window/state")
    restored = False
    if isinstance(geo, QByteArray) and not geo.isEmpty():
        w.restoreGeometry(geo)
    if isinstance(state, QByteArray) and not state.isEmpty():
        restored = w.restoreState(state)
    try:
        w.tabs.setCurrentIndex(int(s.value("window/tab", 0)))
    except (TypeError, ValueError):
        pass
    return restored


def save_layout(w, s: QSettings) -> None:
    s.setValue("window/geometry", w.saveGeometry())
    s.setValue("window/state", w.saveState())
    s.setValue("window/tab", w.tabs.currentIndex())


def default_dock_sizes(w) -> None:
    """The form beside the plot, the chips beneath the form, the results beneath the plot."""
    h = max(w.height(), 600)
    w.resizeDocks([w.form_dock], [390], Qt.Orientation.Horizontal)
    w.resizeDocks([w.form_dock, w.chips_dock], [int(h * 0.6), int(h * 0.4)], Qt.Orientation.Vertical)
    w.resizeDocks([w.results_dock], [int(h * 0.32)], Qt.Orientation.Vertical)


def dropped_scenario(event) -> str | None:
    """The scenario file (``.json``) dragged onto the window, if any."""
    md = event.mimeData()
    if md is None or not md.hasUrls():
        return None
    for url in md.urls():
        if url.isLocalFile() and url.toLocalFile().lower().endswith(".json"):
            return url.toLocalFile()
    return None
