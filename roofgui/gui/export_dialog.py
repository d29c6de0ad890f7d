"""File ▸ Export… and Ctrl+Shift+C: the plot as PNG, SVG or PDF, the data as CSV, or an image
on the clipboard.

The dialog renders with :mod:`roofgui.export.render`, the same function as
``roofgui export``, at the chosen size; the preview is that very picture scaled
down, so what is shown is what is written.  The dialog reads the window through
one small adapter, :func:`~roofgui.gui.export_state.window_state`.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QPixmap
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog,
                               QFormLayout, QFrame, QHBoxLayout, QLabel, QLineEdit,
                               QPlainTextEdit, QPushButton, QSizePolicy, QSpinBox,
                               QStackedWidget, QVBoxLayout, QWidget)

from roofgui.export.render import MAX_SIDE, MIN_SIDE, PRESETS, ExportOptions, format_for
from roofgui.gui.export_state import (SETTINGS_PREFIX, WindowState, copy_to_clipboard, render_options,
                                      save_options, saved_options, settings, suggest_name,
                                      window_state)
from roofgui.model.errors import ModelError
from roofgui.model.evaluate import check_sweep_size, resolve_chips

__all__ = ["ExportDialog", "ExportOptions", "WindowState", "copy_to_clipboard", "save_options",
           "saved_options", "suggest_name", "window_state"]

FORMAT_FILTERS = {
    "png": "PNG image (*.png)",
    "svg": "SVG vector drawing (*.svg)",
    "pdf": "PDF document (*.pdf)",
    "csv": "CSV table (*.csv)",
}
#: Rows of a CSV the preview shows.
PREVIEW_ROWS = 40
STYLE_CHOICES = (("Slide — large type, thick lines", "slide"),
                 ("Screen — as in the window (light)", "screen"),
                 ("Screen — as in the window (dark)", "screen-dark"))


# ---------------------------------------------------------------------------
# The dialog
# ---------------------------------------------------------------------------

class ExportDialog(QDialog):
    """Choose the plot, format, size and style; see the picture; save it or copy it."""

    PREVIEW_SIZE = QSize(640, 360)

    def __init__(self, window, state: WindowState | None = None) -> None:
        super().__init__(window)
        self.setWindowTitle("Export")
        self.setObjectName("exportDialog")
        self.state = state or window_state(window)
        self.last_image: QImage | None = None
        self.last_path: Path | None = None
        self._rendering = False
        last = saved_options(self.state.plot)
        controls = QWidget()
        col = QVBoxLayout(controls)
        col.setContentsMargins(0, 0, 0, 0)
        col.addLayout(self._build_form(last))
        col.addStretch(1)
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(controls, 0)
        top.addWidget(self._build_preview(), 1)
        layout.addLayout(top, 1)
        layout.addWidget(self.info_label)
        layout.addWidget(self._build_buttons())
        # the preview follows the controls, once they rest for a moment (a render takes a while)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(self.refresh_preview)
        for sig in (self.plot_combo.currentIndexChanged, self.format_combo.currentIndexChanged,
                    self.style_combo.currentIndexChanged, self.width_spin.valueChanged,
                    self.height_spin.valueChanged, self.transparent_check.toggled,
                    self.title_check.toggled, self.title_edit.textChanged,
                    self.caption_check.toggled):
            sig.connect(self._changed)
        self.size_combo.currentIndexChanged.connect(self._size_preset)
        self.title_edit.textEdited.connect(lambda _t: self.title_check.setChecked(True))
        self._size_preset()
        self._sync_enabled()
        self.resize(1100, 560)
        self.refresh_preview()

    def _build_form(self, last: ExportOptions) -> QFormLayout:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.plot_combo = self._combo([("Roofline", "roofline"), ("Sweep", "sweep")], self.state.plot,
                                      "Plot", "Which plot to export (for CSV: the results table or "
                                      "the sweep data)")
        form.addRow("&Plot:", self.plot_combo)
        self.format_combo = self._combo(
            [("PNG image", "png"), ("SVG (vector)", "svg"), ("PDF (vector)", "pdf"), ("CSV data", "csv")],
            str(settings().value(SETTINGS_PREFIX + "format", "png")), "Format",
            "PNG for slides; SVG or PDF to edit or scale; CSV for the numbers")
        form.addRow("&Format:", self.format_combo)
        sizes = [(label, (w, h)) for label, w, h in PRESETS] + [("Custom", None)]
        preset = (last.width, last.height) if any(
            (w, h) == (last.width, last.height) for _, w, h in PRESETS) else None
        self.size_combo = self._combo(sizes, preset, "Size", "Picture size in pixels; lines, markers "
                                      "and text scale with it")
        form.addRow("&Size:", self.size_combo)
        form.addRow("", self._build_size_spins(last))
        self.style_combo = self._combo([(label, key) for label, key in STYLE_CHOICES], last.style,
                                       "Style", "Slide: white, large fonts, thick lines and a "
                                       "colour-blind-safe palette")
        form.addRow("S&tyle:", self.style_combo)
        self.transparent_check = QCheckBox("Transparent background")
        self.transparent_check.setChecked(last.transparent)
        self._name(self.transparent_check, "Transparent background",
                   "No background fill, for slides with their own background")
        form.addRow("", self.transparent_check)
        self.title_check = QCheckBox("&Title:")
        self._name(self.title_check, "Title", "Put a title above the plot")
        self.title_edit = QLineEdit(self.state.scenario.title)
        self.title_edit.setMaxLength(300)
        self.title_edit.setPlaceholderText("Title above the plot")
        self._name(self.title_edit, "Title text", "The title above the plot")
        form.addRow(self.title_check, self.title_edit)
        self.caption_check = QCheckBox("Caption with the op, shapes, dtypes, chips and sources")
        self.caption_check.setChecked(last.caption)
        self._name(self.caption_check, "Caption", "Stamp the figures' provenance under the plot")
        form.addRow("", self.caption_check)
        return form

    def _combo(self, items: list, current, name: str, tip: str) -> QComboBox:
        """A combo of (text, data) items showing ``current`` (else the first)."""
        c = QComboBox()
        for text, data in items:
            c.addItem(text, data)
        c.setCurrentIndex(next((i for i, (_, data) in enumerate(items) if data == current), 0))
        self._name(c, name, tip)
        return c

    def _build_size_spins(self, last: ExportOptions) -> QHBoxLayout:
        self.width_spin = QSpinBox()
        self.height_spin = QSpinBox()
        for sp, name, value in ((self.width_spin, "Width", last.width),
                                (self.height_spin, "Height", last.height)):
            sp.setRange(MIN_SIDE, MAX_SIDE)
            sp.setSuffix(" px")
            sp.setAccelerated(True)
            sp.setValue(value)
            self._name(sp, name, f"{name} of the picture in pixels")
        wh = QHBoxLayout()
        wh.addWidget(self.width_spin)
        wh.addWidget(QLabel("×"))
        wh.addWidget(self.height_spin)
        return wh

    def _build_preview(self) -> QStackedWidget:
        self.preview_label = QLabel()
        self.preview_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview_label.setMinimumSize(self.PREVIEW_SIZE)
        self.preview_label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.preview_label.setFrameShape(QFrame.Shape.StyledPanel)
        self.preview_label.setAccessibleName("Preview")
        self.preview_text = QPlainTextEdit()
        self.preview_text.setReadOnly(True)
        self.preview_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.preview_text.setAccessibleName("CSV preview")
        self.preview_stack = QStackedWidget()
        self.preview_stack.addWidget(self.preview_label)
        self.preview_stack.addWidget(self.preview_text)
        self.info_label = QLabel()
        self.info_label.setWordWrap(True)
        self.info_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.info_label.setAccessibleName("Status")
        return self.preview_stack

    def _build_buttons(self) -> QDialogButtonBox:
        self.buttons = QDialogButtonBox()
        self.save_button = QPushButton("&Save…")
        self.save_button.setDefault(True)
        self.copy_button = QPushButton("&Copy Image")
        self.buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        self.save_button.clicked.connect(self.save_dialog)
        self.copy_button.clicked.connect(self.copy_image)
        return self.buttons

    @staticmethod
    def _name(w: QWidget, name: str, tip: str) -> None:
        w.setAccessibleName(name)
        w.setToolTip(tip)

    # -- state -------------------------------------------------------------------
    def fmt(self) -> str:
        return self.format_combo.currentData()

    def options(self) -> ExportOptions:
        """The options the controls describe (the picture the preview shows)."""
        title = self.title_edit.text().strip() if self.title_check.isChecked() else None
        return ExportOptions(plot=self.plot_combo.currentData(), width=self.width_spin.value(),
                             height=self.height_spin.value(),
                             style=self.style_combo.currentData(), title=title or None,
                             caption=self.caption_check.isChecked(),
                             transparent=self.transparent_check.isChecked())

    def _size_preset(self) -> None:
        wh = self.size_combo.currentData()
        custom = wh is None
        if not custom:
            for sp, v in ((self.width_spin, wh[0]), (self.height_spin, wh[1])):
                sp.blockSignals(True)
                sp.setValue(v)
                sp.blockSignals(False)
        self._sync_enabled()
        self._changed()

    def _sync_enabled(self) -> None:
        picture = self.fmt() != "csv"
        custom = self.size_combo.currentData() is None
        for w in (self.size_combo, self.style_combo, self.transparent_check, self.title_check,
                  self.title_edit, self.caption_check):
            w.setEnabled(picture)
        self.width_spin.setEnabled(picture and custom)
        self.height_spin.setEnabled(picture and custom)
        self.copy_button.setEnabled(picture)

    def _changed(self, *_args) -> None:
        self._sync_enabled()
        self._timer.start()

    # -- preview --------------------------------------------------------------------
    def refresh_preview(self) -> None:
        """Render the picture at its full size and show it scaled down (or the CSV's text)."""
        self._timer.stop()
        if self._rendering:
            self._timer.start()
            return
        self._rendering = True
        try:
            opts = self.options()
            refused = self.sweep_refusal()
            if refused:
                raise ModelError(refused, "sweep")
            if self.fmt() == "csv":
                self._preview_csv(opts.plot)
                return
            img = render_options(self.state, opts)
            self.last_image = img
            self.preview_stack.setCurrentWidget(self.preview_label)
            self._show_preview(img)
            self._info(f"Preview of the {opts.width} × {opts.height} picture, scaled to fit.")
        except (ModelError, ValueError) as e:
            self.last_image = None
            self.preview_label.setPixmap(QPixmap())
            self.preview_label.setText(str(e))
            self._info(str(e), error=True)
        finally:
            self._rendering = False

    def _preview_csv(self, plot: str) -> None:
        """The first rows of the table, computed no further than they need (a sweep's CSV
        is streamed: the whole of a large one would not fit in memory)."""
        from roofgui.export.csv import table_csv_chunks

        text, chunks = "", table_csv_chunks(self.state.scenario, self.state.catalog, plot)
        while text.count("\n") <= PREVIEW_ROWS + 1 and (chunk := next(chunks, None)) is not None:
            text += chunk
        lines = text.splitlines()
        more = len(lines) > PREVIEW_ROWS + 1 or next(chunks, None) is not None
        self.preview_text.setPlainText("\n".join(lines[:PREVIEW_ROWS + 1])
                                       + ("\n… more rows" if more else ""))
        self.preview_stack.setCurrentWidget(self.preview_text)
        self.last_image = None
        columns = len(lines[0].split(",")) if lines else 0
        self._info(f"The first {PREVIEW_ROWS} rows of {columns} columns" if more
                   else f"{len(lines) - 1} rows × {columns} columns")

    def sweep_refusal(self, fmt: str | None = None) -> str | None:
        """Why the sweep is too large to export as ``fmt`` (the chosen format), as
        ``roofgui export`` refuses it, before anything is computed; None when it is not."""
        if self.plot_combo.currentData() != "sweep":
            return None
        from roofgui.export.csv import MAX_SWEEP_CSV_VALUES, SWEEP_CSV_BYTES_PER_VALUE
        from roofgui.model.llm import SWEEP_VIEWS

        sc = self.state.scenario
        n_chips = len(resolve_chips(sc, self.state.catalog)[0])
        try:
            if (fmt or self.fmt()) == "csv" and sc.sweep.y not in SWEEP_VIEWS:  # (streamed)
                check_sweep_size(sc, n_chips, MAX_SWEEP_CSV_VALUES, SWEEP_CSV_BYTES_PER_VALUE)
            else:
                check_sweep_size(sc, n_chips)
        except ModelError as e:
            return f"Cannot export this sweep: {e}"
        return None

    def _show_preview(self, img: QImage) -> None:
        area = self.preview_label.contentsRect().size()
        if area.width() < 16 or area.height() < 16:
            area = self.PREVIEW_SIZE
        shown = img.scaled(area, Qt.AspectRatioMode.KeepAspectRatio,
                           Qt.TransformationMode.SmoothTransformation)
        if img.hasAlphaChannel() and self.transparent_check.isChecked():
            shown = _on_checkerboard(shown)
        self.preview_label.setPixmap(QPixmap.fromImage(shown))

    def resizeEvent(self, e) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(e)
        if self.last_image is not None:
            self._show_preview(self.last_image)

    def _info(self, text: str, error: bool = False) -> None:
        self.info_label.setText(text)
        self.info_label.setStyleSheet("color: #c0392b;" if error else "")

    # -- actions ----------------------------------------------------------------------
    def save_to(self, path: str | Path) -> Path:
        """Write the export to ``path`` (its suffix picks the format). Raises on failure."""
        from roofgui.export.render import export_file

        p = Path(path)
        opts = self.options()
        refused = self.sweep_refusal(format_for(p))
        if refused:
            raise ModelError(refused, "sweep")
        export_file(p, self.state.scenario, self.state.catalog, opts.plot, opts.width, opts.height,
                    opts.style, opts.title, opts.caption, opts.transparent)
        save_options(opts, format_for(p))
        self.last_path = p
        return p

    def save_dialog(self) -> None:
        fmt = self.fmt()
        refused = self.sweep_refusal()
        if refused:  # (said before a file name is asked for)
            self._info(refused, error=True)
            return
        s = settings()
        folder = s.value(SETTINGS_PREFIX + "dir", "")
        if not folder:
            folder = str(self.state.path.parent) if self.state.path else str(Path.home())
        start = str(Path(folder) / suggest_name(self.state, self.options().plot, fmt))
        path, _ = QFileDialog.getSaveFileName(self, "Export", start, FORMAT_FILTERS[fmt])
        if not path:
            return
        p = Path(path)
        if p.suffix.lower() not in (".png", ".svg", ".pdf", ".csv"):
            p = p.with_suffix(f".{fmt}")
        try:
            self.save_to(p)
        except (ModelError, ValueError, OSError) as e:
            msg = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            self._info(f"Could not write {p}: {msg}", error=True)
            return
        s.setValue(SETTINGS_PREFIX + "dir", str(p.parent))
        self._info(f"Saved {p}")

    def copy_image(self) -> QImage | None:
        """Put the picture on the clipboard."""
        if self.fmt() == "csv":
            return None
        img = self.last_image
        if img is None or self._timer.isActive():
            self.refresh_preview()
            img = self.last_image
        if img is None:
            return None
        QGuiApplication.clipboard().setImage(img)
        save_options(self.options())
        self._info("Copied the picture to the clipboard")
        return img


def _on_checkerboard(img: QImage) -> QImage:
    """A transparent picture over a light checkerboard, as image editors show transparency."""
    out = QImage(img.size(), QImage.Format.Format_ARGB32_Premultiplied)
    out.fill(QColor("#ffffff"))
    p = QPainter(out)
    step = 8
    for y in range(0, out.height(), step):
        for x in range((y // step) % 2 * step, out.width(), 2 * step):
            p.fillRect(x, y, step, step, QColor("#e6e6e6"))
    p.drawImage(0, 0, img)
    p.end()
    return out
