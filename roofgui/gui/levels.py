"""Memory levels in the window: a "Tiling" box under the selected matmul's fields, and the
hierarchical roofline (one roof and one point per on-chip level) on the roofline plot.

:func:`install_levels` is the hook the window calls once it is built; it uses the window's
public parts only (document, form, roofline plot, live evaluator).  The tile is part of the
scenario (saved with it, undoable); a tile that cannot be read shows one message under the
field and the scenario keeps its last good tile.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QGroupBox, QLabel, QLineEdit, QVBoxLayout

from roofgui.gui.document import op_part
from roofgui.gui.keyboard import AFTER_OP_FIELDS, add_to_chain
from roofgui.gui.measured import session as measured_session
from roofgui.model.errors import ModelError
from roofgui.model.tiling import TILED_KINDS, make_tile
from roofgui.plotting.levels_layer import LevelsLayer
from roofgui.presentation.levels_geom import (LevelsGeometry, level_summary, levels_geometry,
                                              measured_marks, with_measured_roofs)

PLACEHOLDER = "untiled — e.g. bm=128, bn=128, bk=64"
TIP = ("Output tile sizes of the matmul (bm rows × bn columns, and bk of the contracted "
       "dimension per step). With a tile, the roofline shows one roof per on-chip memory level "
       "(L2, shared memory, VMEM, Infinity Cache) and one point per level, and says which binds. "
       "Write bm=128,bn=128 or 128x128x64; leave empty for no tiling.")


def parse_tile_text(text: str) -> dict[str, int] | None:
    """``"bm=128,bn=64"``, ``"128x64x32"`` or ``"128, 64"`` → tile dict; ``""`` → None.

    Raises ModelError with one message for anything else."""
    text = text.strip()
    if not text:
        return None
    if "=" in text:
        values: dict[str, object] = {}
        for part in re.split(r"[,;\s]+", text):
            if not part:
                continue
            k, sep, v = part.partition("=")
            if not sep or not k.strip():  # (a lone "bm")
                raise ModelError(f"{part!r} should look like bm=128")
            values[k.strip()] = _number(v, k.strip())
    else:
        nums = [p for p in re.split(r"[x×,;\s]+", text) if p]
        if not 2 <= len(nums) <= 3:
            raise ModelError("give bm and bn (and bk), e.g. 128x128 or bm=128,bn=128")
        values = dict(zip(("bm", "bn", "bk"), (_number(n, k) for n, k in zip(nums, ("bm", "bn", "bk")))))
    return make_tile(values).as_dict()


def _number(text: str, key: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ModelError(f"{key}: {text.strip()!r} is not a number") from None


class TileBox(QGroupBox):
    """The selected matmul's tile (``edit``), its error (``message``) and, after each
    evaluation, which level binds on each chip (``summary``)."""

    def __init__(self, doc, parent=None) -> None:
        super().__init__("Tiling (memory levels)", parent)
        self.setObjectName("tileBox")
        self.doc = doc
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        self.edit = QLineEdit()
        self.edit.setObjectName("tile")
        self.edit.setAccessibleName("Tile")
        self.edit.setPlaceholderText(PLACEHOLDER)
        self.edit.setToolTip(TIP)
        self.message = QLabel()
        self.message.setObjectName("tileError")
        self.message.setStyleSheet("color: #d32f2f;")
        self.message.setWordWrap(True)
        self.message.hide()
        self.summary = QLabel()
        self.summary.setObjectName("levelSummary")
        self.summary.setWordWrap(True)
        for w in (self.edit, self.message, self.summary):
            lay.addWidget(w)
        self.shown_op: tuple[int, int] | None = None  # (selected, number of ops) shown
        self.edit.editingFinished.connect(self.commit)
        doc.changed.connect(self.sync)
        self.sync()

    def sync(self, *_args) -> None:
        """Show the selected op's tile (a matmul's only; the box hides for other ops)."""
        sc = self.doc.scenario
        op = sc.ops[sc.selected] if sc.ops and 0 <= sc.selected < len(sc.ops) else None
        self.setVisible(op is not None and op.kind in TILED_KINDS)
        shown, self.shown_op = self.shown_op, (sc.selected, len(sc.ops))
        if shown != self.shown_op:  # another op: its own tile, no error left from the last
            self.message.hide()
        elif self.edit.hasFocus() or self.message.isVisible():
            return
        if op is None:
            return
        self.edit.setText(", ".join(f"{k}={v}" for k, v in (op.tile or {}).items()))

    def commit(self) -> None:
        sc = self.doc.scenario
        if not sc.ops:
            return
        try:
            tile = parse_tile_text(self.edit.text())
        except ModelError as e:
            self.message.setText(f"Tile: {e.args[0]}")
            self.message.show()
            return
        self.message.hide()
        i = sc.selected

        def change(s) -> None:
            s.ops[i].tile = tile

        self.doc.edit(f"Set tile of {sc.ops[i].name}", change, part=op_part(i), origin=self)

    def set_summary(self, text: str) -> None:
        self.summary.setText(text)
        self.summary.setVisible(bool(text))


class LevelsSession(QObject):
    """The window's tile box (``box``) and plot layer (``layer``)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.setObjectName("levelsSession")
        self.w = window
        self.layer = LevelsLayer(window.roofline_plot)
        self.box = TileBox(window.doc)
        editor = window.form.editor
        lay = editor.layout()
        lay.insertWidget(max(lay.indexOf(editor.empty), 0), self.box)
        add_to_chain(window, AFTER_OP_FIELDS, lambda: [self.box.edit])  # (a matmul's only)
        self.geometry = LevelsGeometry()
        live = getattr(window, "live", None)
        if live is not None and hasattr(live, "evaluated"):
            live.evaluated.connect(lambda _ev: self.refresh())
        window.doc.changed.connect(self.on_doc_changed)
        self.measured = measured_session(window)
        if self.measured is not None:  # (its stars redrawn: an import, a clear, an evaluation)
            self.measured.layer.item.sigPlotChanged.connect(self.on_measured_changed)
        if window.evaluation is not None:  # (a scenario opened before this was installed)
            self.refresh()

    def on_doc_changed(self, *_args) -> None:
        QTimer.singleShot(0, self, self.show_summary)  # (dropped once the window is gone)

    def on_measured_changed(self, *_args) -> None:
        QTimer.singleShot(0, self, self.show_measured)

    def show_measured(self) -> None:
        """Measured kernels' L2 / L1 points on the chip's levels (their HBM stars are the
        measured layer's)."""
        w = self.w
        placed = self.measured.placed if self.measured is not None else []
        chips = {c.id: c for c in getattr(w.evaluation, "chips", []) or []}
        colours = dict(w.live.colours)
        self.layer.set_geometry(with_measured_roofs(self.geometry, placed, chips, colours))
        self.layer.set_measured(measured_marks(placed, chips, colours))

    def refresh(self) -> None:
        w = self.w
        ev = w.evaluation
        self.geometry = levels_geometry(ev, dict(w.live.colours)) if ev is not None else LevelsGeometry()
        self.show_measured()
        self.show_summary()

    def show_summary(self) -> None:
        w = self.w
        names = {c.id: c.label() for c in getattr(w.evaluation, "chips", []) or []}
        self.box.set_summary(level_summary(self.geometry, w.doc.scenario.selected, names))


def install_levels(window) -> LevelsSession:
    """Add the tile box and the level layer to a built main window (once)."""
    return window.findChild(LevelsSession, "levelsSession") or LevelsSession(window)
