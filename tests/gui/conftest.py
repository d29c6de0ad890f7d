"""Fixtures shared by the window tests (a test file may define its own ``window``)."""

from __future__ import annotations

import pytest

from gui_helpers import close_quietly, open_window
from roofgui.model.catalog import Catalog


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
