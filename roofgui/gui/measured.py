"""Measured kernels in the window: File ▸ Import Measurements… (Ctrl+I), files dropped on
the window, the stars on the roofline and the "Measured" panel.

:func:`install_measured` is the one hook the window calls once it is built; it uses only the
window's public parts (menu bar, roofline plot, document, catalog, evaluation, chip
colours, status bar, results dock).  The window's drag and drop hands measurement files
here through :func:`drag_enter_measured` and :func:`drop_measured` (a scenario ``.json``
still opens as a scenario; a JSON that is a PyTorch profiler trace is a measurement).

Every file of an import is read before anything is shown: a bad one shows one message
naming its file, line and column, and nothing of that import is kept (the kernels imported
before stay).  Each kernel is placed on the chip its file names when that chip is checked,
else on the first checked chip (the status bar says so), and placed again at every
evaluation.  The measurements are kept for the session, never saved in the scenario; a
calibration fitted from them (:mod:`.calibration`) is saved only once applied as a derate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox

from roofgui.gui.calibration import Calibrator
from roofgui.gui.keyboard import AFTER_RESULTS, add_to_chain
from roofgui.gui.menus import ensure_mnemonics
from roofgui.gui.window_layout import tabbed_dock
from roofgui.gui.measured_panel import MeasuredPanel
from roofgui.model.measured import MeasuredSet, MeasurementError, parse_measurements
from roofgui.plotting.measured_layer import MeasuredLayer
from roofgui.presentation.measured_match import PlacedKernel, place_kernels

FILE_FILTER = ("Measurements (*.csv *.json *.txt);;Nsight Compute CSV (*.csv);;"
               "PyTorch profiler trace (*.json);;All files (*)")
TITLE = "Import Measurements"
#: How much of a dropped ``.json`` is read to tell a profiler trace from a scenario.
SNIFF_BYTES = 1 << 20


class MeasuredSession(QObject):
    """The window's measured kernels: the files imported (``sets``), the kernels as last
    placed (``placed``), the plot's layer (``layer``), the panel (``panel``) in its dock
    (``dock``), the File menu's action (``import_action``) and the ``calibrator``."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.setObjectName("measuredSession")
        self.w = window
        self.sets: list[MeasuredSet] = []
        self.placed: list[PlacedKernel] = []
        self.notes: list[str] = []
        self.last_dir = ""
        self.layer = MeasuredLayer(window.roofline_plot)
        self.panel = MeasuredPanel()
        self.panel.clear_button.clicked.connect(self.clear)
        self.panel.import_button.clicked.connect(self.open_dialog)
        self.calibrator = Calibrator(window, self.panel.calibration)
        self.dock = tabbed_dock(window, "Measured", "measuredDock", self.panel)
        add_to_chain(window, AFTER_RESULTS, self.panel.focus_chain)
        self.import_action = QAction("Import &Measurements\u2026", window)
        self.import_action.setShortcut(QKeySequence("Ctrl+I"))
        tip = ("Import measured kernels (Nsight Compute, rocprof-compute, XProf, PyTorch "
               "profiler, or a name,seconds,flops,bytes CSV) onto the roofline")
        self.import_action.setStatusTip(tip)
        self.import_action.setToolTip(tip)
        self.import_action.triggered.connect(self.open_dialog)
        window.addAction(self.import_action)  # (its shortcut works with the menu closed)
        _add_to_menus(window, self.import_action, self.dock.toggleViewAction())
        live = getattr(window, "live", None)
        if live is not None and hasattr(live, "evaluated"):
            live.evaluated.connect(lambda _ev: self.refresh())
        else:  # (a window without the live evaluator: after the document's change)
            window.doc.changed.connect(lambda *_: QTimer.singleShot(0, self.refresh))
        window.installEventFilter(self)  # (a palette change restyles the stars)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.w and event.type() in (QEvent.Type.PaletteChange,
                                              QEvent.Type.ApplicationPaletteChange):
            QTimer.singleShot(0, self.refresh)  # (after the window restyles its plots)
        return False

    # -- importing -------------------------------------------------------------------
    def open_dialog(self) -> bool:
        """Ask for measurement files and import them (False: cancelled or refused)."""
        paths, _ = QFileDialog.getOpenFileNames(self.w, TITLE, self.last_dir, FILE_FILTER)
        return self.import_files(paths) if paths else False

    def import_files(self, paths: Sequence[str | Path]) -> bool:
        """Read every file, then show their kernels with those imported before.  A bad
        file: one message naming its file, line and column; nothing of this import kept."""
        paths = [str(p) for p in paths]
        if not paths:
            return False
        try:
            sets = [parse_measurements(p) for p in paths]  # all read before any is shown
        except MeasurementError as e:
            QMessageBox.warning(self.w, TITLE, f"Nothing was imported.\n\n{e}")
            self.w.statusBar().showMessage(f"Nothing imported: {e}", 15000)
            return False
        self.last_dir = str(Path(paths[-1]).parent)
        again = {s.source for s in sets}  # (a file imported again replaces its kernels)
        self.sets = [s for s in self.sets if s.source not in again] + sets
        self.refresh()
        self.dock.show()
        self.dock.raise_()
        self.w.statusBar().showMessage(self._imported_message(sets), 15000)
        return True

    def _imported_message(self, sets: Sequence[MeasuredSet]) -> str:
        n = sum(len(s) for s in sets)
        files = f"{len(sets)} file{'s' if len(sets) != 1 else ''}"
        chips = sorted({pk.point.chip for pk in self.placed
                        if any(pk.kernel in s.kernels for s in sets)})
        where = f" onto {', '.join(chips)}" if chips else ""
        mine = [note for note in self.notes
                if any(note.startswith(Path(s.source).name + ":") for s in sets)]
        return "; ".join([f"Imported {n} kernel{'s' if n != 1 else ''} from {files}{where}"]
                         + mine)

    def clear(self) -> None:
        """Forget every measured kernel (the plot and the table empty)."""
        self.sets = []
        self.refresh()
        self.w.statusBar().showMessage("Measured kernels cleared", 5000)

    # -- showing ---------------------------------------------------------------------
    def refresh(self) -> None:
        """Place every kernel against the window's last evaluation and show them."""
        w = self.w
        if not self.sets and not self.placed and not self.notes:
            if w.doc.scenario.derates or self.calibrator.box.chip_ids:
                self.calibrator.update([])  # (a derate opened from a file: listed, removable)
            return  # (nothing imported and nothing shown: an edit changes nothing here)
        ev = w.evaluation if self.sets else None
        if ev is None:
            self.placed, self.notes = [], []
        else:
            self.placed, self.notes = place_kernels(
                self.sets, ev.chips, w.doc.scenario.ops, ev.entries, w.catalog.chips.values())
        self.layer.set_kernels(self.placed, w.chip_colours())
        self.panel.set_kernels(self.placed, len(self.sets), self.notes)
        self.calibrator.update(self.placed)


def _add_to_menus(window, import_action: QAction, toggle: QAction) -> None:
    """Import Measurements… in the File menu after Examples (else before its first
    separator), and the panel's toggle in the View menu after the other panels'."""
    for top in window.menuBar().actions():
        menu = top.menu()
        if menu is None:
            continue
        name = top.text().replace("&", "")
        acts = menu.actions()
        if name == "File":
            after = [i for i, a in enumerate(acts) if a.menu() is not None]
            seps = [i for i, a in enumerate(acts) if a.isSeparator()]
            at = after[-1] + 1 if after else (seps[0] if seps else len(acts))
            menu.insertAction(acts[at] if at < len(acts) else None, import_action)
        elif name == "View":
            docks = [i for i, a in enumerate(acts) if a.isCheckable() and "Results" in a.text()]
            at = docks[-1] + 1 if docks else len(acts)
            menu.insertAction(acts[at] if at < len(acts) else None, toggle)
        ensure_mnemonics(menu)


def install_measured(window) -> MeasuredSession:
    """Add measured kernels to a built main window (see the module's description); once
    only: a second call gives the window's session back."""
    return session(window) or MeasuredSession(window)


def session(window) -> MeasuredSession | None:
    """The window's measured-kernels session, once :func:`install_measured` has run."""
    return window.findChild(MeasuredSession, "measuredSession")


# -- drag and drop -----------------------------------------------------------------------
def dropped_paths(event) -> list[str]:
    """The local files a drag carries."""
    md = event.mimeData()
    if md is None or not md.hasUrls():
        return []
    return [u.toLocalFile() for u in md.urls() if u.isLocalFile()]


def is_measurement_file(path: str | Path) -> bool:
    """Whether a dropped file is a measurement: any file but a ``.json``, and a ``.json``
    that reads as a PyTorch profiler trace (``traceEvents``) and not as a scenario."""
    p = Path(path)
    if p.suffix.lower() != ".json":
        return True
    try:
        with open(p, "rb") as f:
            head = f.read(SNIFF_BYTES).decode("utf-8", "replace")
    except OSError:
        return False  # (the scenario's opening says why it cannot be read)
    return '"traceEvents"' in head and "roofgui-scenario" not in head


def accepts_drop(paths: Iterable[str | Path]) -> bool:
    """Whether dropped files are measurements (all of them; a scenario among them opens
    as a scenario)."""
    paths = list(paths)
    return bool(paths) and all(is_measurement_file(p) for p in paths)


def import_files(window, paths: Sequence[str | Path]) -> bool:
    """Import measurement files into a window (see :meth:`MeasuredSession.import_files`)."""
    s = session(window)
    return s.import_files(paths) if s is not None else False


def drag_enter_measured(window, event) -> bool:
    """For the window's ``dragEnterEvent``: accept a drag of measurement files (True)."""
    if session(window) is None or not accepts_drop(dropped_paths(event)):
        return False
    event.acceptProposedAction()
    return True


def drop_measured(window, event) -> bool:
    """For the window's ``dropEvent``: import dropped measurement files (True when they
    were measurements, imported or refused with a message)."""
    paths = dropped_paths(event)
    if session(window) is None or not accepts_drop(paths):
        return False
    event.acceptProposedAction()
    import_files(window, paths)
    return True
