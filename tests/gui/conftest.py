"""Fixtures shared by the window tests (a test file may define its own ``window``)."""

from __future__ import annotations

import pytest

from gui_helpers import close_quietly, open_window
from roofgui.model.catalog import Catalog
from roofgui.plotting.plots import RooflinePlot


@pytest.fixture(scope="module")
def shipped():
    """The shipped chips, loaded once per test file (the tests make no custom chips)."""
    return Catalog.load(user_dir=False)


@pytest.fixture
def window(qtbot, shipped):
    """A main window on the shipped chips, closed after the test."""
    w = open_window(shipped)
    yield w
    close_quietly(w)


@pytest.fixture
def roof(qtbot):
    """A roofline plot on its own, 900×600, shown."""
    w = RooflinePlot()
    qtbot.addWidget(w)
    w.resize(900, 600)
    w.show()
    return w
