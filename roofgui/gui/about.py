"""Help ▸ About: version, the chip catalog's version and sources, licence.

``show_about(parent)`` opens the dialog window-modally without blocking and
returns it; ``AboutDialog(parent, catalog=None)`` builds it (with no catalog it
loads the shipped chips only, never the user's).
"""

from __future__ import annotations

import html
import platform
import re
from collections import OrderedDict

from PySide6 import QtCore, QtGui, QtWidgets

from roofgui import __version__
from roofgui.model.catalog import CATALOG_VERSION, Catalog

APP_NAME = "Roofline Explorer"
LICENSE_NAME = "MIT"
#: The text of the top-level LICENSE file (a test keeps the two identical).
LICENSE_TEXT = """\
MIT License

Copyright (c) 2026 Roofline Explorer developers

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

_URL = re.compile(r"https?://[^\s<>()\"']+[^\s<>()\"'.,;:]")


def shipped_sources(catalog: Catalog) -> "OrderedDict[str, list[str]]":
    """Every distinct source cited by the shipped chips -> the chips citing it.

    Ordered by how many chips cite a source (most first), then alphabetically.
    """
    by_text: dict[str, list[str]] = {}
    for chip in catalog:
        if not chip.builtin:
            continue
        for text in chip.sources.values():
            names = by_text.setdefault(text.strip(), [])
            if chip.name not in names:
                names.append(chip.name)
    return OrderedDict(sorted(by_text.items(), key=lambda kv: (-len(kv[1]), kv[0].lower())))


def _linkify(text: str) -> str:
    out, last = [], 0
    for m in _URL.finditer(text):
        out.append(html.escape(text[last:m.start()]))
        url = m.group(0)
        out.append(f'<a href="{html.escape(url, quote=True)}">{html.escape(url)}</a>')
        last = m.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def sources_html(catalog: Catalog) -> str:
    src = shipped_sources(catalog)
    n_chips = sum(1 for c in catalog if c.builtin)
    items = []
    for text, chips in src.items():
        items.append(f"<li>{_linkify(text)}<br><small>cited for: {html.escape(', '.join(chips))}</small></li>")
    return (f"<p>Chip catalog <b>{html.escape(CATALOG_VERSION)}</b>: {n_chips} shipped chips. "
            f"Every figure in it cites one of these {len(src)} public sources "
            "(<i>roofgui show-chip ID</i> shows which source backs which figure):</p>"
            f"<ol>{''.join(items)}</ol>")


def versions_text() -> str:
    import numpy
    import PySide6

    parts = [f"Python {platform.python_version()}", f"PySide6 {PySide6.__version__}",
             f"Qt {QtCore.qVersion()}", f"numpy {numpy.__version__}"]
    try:
        import pyqtgraph

        parts.append(f"pyqtgraph {pyqtgraph.__version__}")
    except Exception:  # pragma: no cover - a hard dependency, but About must still open
        pass
    return ", ".join(parts)


class AboutDialog(QtWidgets.QDialog):
    def __init__(self, parent: QtWidgets.QWidget | None = None, catalog: Catalog | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle(f"About {APP_NAME}")
        if catalog is None:
            catalog = Catalog.load(user_dir=False)
        self.catalog = catalog

        icon = QtWidgets.QLabel()
        app = QtWidgets.QApplication.instance()
        win_icon = app.windowIcon() if isinstance(app, QtGui.QGuiApplication) else QtGui.QIcon()
        if not win_icon.isNull():
            icon.setPixmap(win_icon.pixmap(72, 72))
        icon.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop)

        n_chips = sum(1 for c in catalog if c.builtin)
        self.header = QtWidgets.QLabel(
            f"<h2>{APP_NAME}</h2>"
            f"<p>Version <b>{html.escape(__version__)}</b><br>"
            f"Chip catalog <b>{html.escape(CATALOG_VERSION)}</b> ({n_chips} shipped chips, every figure cited)<br>"
            f"Licence: <b>{LICENSE_NAME}</b></p>"
            "<p>A live log-log roofline for ML operations on accelerators: is it compute-, "
            "memory- or network-bound, and how long must it take? Works offline.</p>"
            f"<p><small>{html.escape(versions_text())}</small></p>")
        self.header.setObjectName("aboutHeader")
        self.header.setWordWrap(True)
        self.header.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        self.sources = QtWidgets.QTextBrowser()
        self.sources.setObjectName("aboutSources")
        self.sources.setOpenExternalLinks(True)
        self.sources.setHtml(sources_html(catalog))

        self.licence = QtWidgets.QPlainTextEdit(LICENSE_TEXT)
        self.licence.setObjectName("aboutLicence")
        self.licence.setReadOnly(True)
        self.licence.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))

        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self.sources, "Chip sources")
        self.tabs.addTab(self.licence, "Licence")

        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)

        top = QtWidgets.QHBoxLayout()
        top.addWidget(icon)
        top.addWidget(self.header, 1)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(buttons)
        self.resize(720, 560)


def show_about(parent: QtWidgets.QWidget | None = None, catalog: Catalog | None = None) -> AboutDialog:
    """Open Help ▸ About (window-modal, does not block) and return the dialog."""
    dlg = AboutDialog(parent, catalog)
    dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose, True)
    dlg.open()
    return dlg
