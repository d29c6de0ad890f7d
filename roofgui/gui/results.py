"""The results panel: the selected op's figures on every chip, and the working.

Every figure comes from :func:`roofgui.presentation.report.record` and every line of
the working from :func:`roofgui.presentation.report.working`; this module only lays
them out.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QGuiApplication, QTextCursor
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit,
                               QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from roofgui.model.chips import SCALE_UP
from roofgui.model.errors import ModelError
from roofgui.model.ops import OP_KINDS
from roofgui.gui.results_layout import ResizedSplitter, share_height, show_selected
from roofgui.gui.summary_table import SummaryTable
from roofgui.presentation.report import record, working
from roofgui.presentation.summary import summarise
from roofgui.model.scenario import Scenario
from roofgui.model.evaluate import Evaluation
from roofgui.model.units import format_number, format_si, format_time
from roofgui.presentation import llm_text

# (row label, record key, formatter, tooltip)
_ROWS: list[tuple[str, str, str, str]] = [
    ("FLOPs", "flops", "si:FLOP", "Floating-point operations per chip (a multiply-add is 2)."),
    ("Bytes (HBM)", "hbm_bytes", "si:B", "Bytes read from and written to HBM per chip."),
    ("Link", "link", "link", "The link this chip's shards talk over, with its one-way bandwidth "
     "(“each chip's scale-up link” is ICI on a TPU, NVLink on an NVIDIA GPU, xGMI on an AMD GPU …)."),
    ("Bytes (link)", "net_bytes", "si:B", "Bytes each chip sends over the link (sharded ops)."),
    ("Intensity", "intensity", "num:FLOP/B", "FLOPs per HBM byte: the op's x position on the roofline."),
    ("Critical intensity", "critical_intensity", "num:FLOP/B",
     "Peak FLOP/s ÷ HBM bandwidth: the ridge point. Above it the op is compute-bound on HBM."),
    ("Link intensity", "net_intensity", "num:FLOP/B", "FLOPs per link byte."),
    ("Critical link intensity", "net_critical_intensity", "num:FLOP/B",
     "Peak FLOP/s ÷ link bandwidth: above it the link is not the bottleneck."),
    ("Peak used", "peak_flops", "peak", "The peak FLOP/s for the op's compute dtype on this chip."),
    ("T_math", "t_math", "time", "FLOPs ÷ peak FLOP/s."),
    ("T_comms (HBM)", "t_hbm", "time", "HBM bytes ÷ HBM bandwidth."),
    ("T_comms (link)", "t_net", "time", "Link bytes ÷ link bandwidth."),
    ("T_comms", "t_comms", "time", "The larger of the comms times (HBM and link run on separate engines)."),
    ("T_lower", "t_lower", "time", "max(T_math, T_comms): perfect overlap of compute and communication."),
    ("T_upper", "t_upper", "time", "T_math + T_comms: no overlap."),
    ("Attainable", "attainable_flops", "si:FLOP/s", "FLOPs ÷ T_lower: the op's y position."),
    ("Utilisation", "utilisation", "pct", "T_math ÷ T_lower: the fraction of peak the op can reach."),
    ("Bound", "bound", "bound", "What limits the op: compute, memory (HBM) or network (link)."),
]

KEY_ROLE = int(Qt.ItemDataRole.UserRole) + 1
BOUND_COLOURS = {"compute": "#2e7d32", "memory": "#c62828", "network": "#ef6c00"}


def _fmt(kind: str, v, rec: dict) -> str:
    if v is None:
        return "∞" if kind.startswith("num") else "—"
    if kind.startswith("si:"):
        return format_si(float(v), kind[3:])
    if kind.startswith("num:"):
        return f"{format_number(float(v))}"
    if kind == "time":
        return format_time(float(v))
    if kind == "pct":
        return f"{float(v):.1%}"
    if kind == "peak":
        return f"{format_si(float(v), 'FLOP/s')} ({rec.get('peak_dtype', '')})"
    if kind == "link":
        bw = rec.get("link_bandwidth")
        return f"{v} · {format_si(float(bw), 'B/s')}" if bw else str(v)
    return str(v)


#: Per op kind: (extra table rows, extra working lines) for kinds with more to say.
RESULT_EXTRAS: dict[str, tuple[Callable, Callable]] = {"llm": (llm_text.table_rows_with_extras, llm_text.working_lines)}


def cell_text(fmt: str, key: str, rec: dict, extra: dict[str, str], label: str) -> str:
    """The text of one figure of one record (a table row's format and key)."""
    if key.startswith("critical:"):
        v = rec["critical"].get(key[9:])
        return "—" if v is None else format_number(v)
    if key.startswith("extra:"):
        return extra.get(label, "—")
    return _fmt(fmt, rec.get(key), rec)


def op_extras(kind_name: str, entries, recs) -> tuple[list[dict[str, str]], list[list[str]]]:
    """Per column: the kind's extra rows and working lines (:data:`RESULT_EXTRAS`)."""
    extras = RESULT_EXTRAS.get(kind_name)
    cols: list[dict[str, str]] = []
    lines: list[list[str]] = []
    if extras is None:
        return cols, lines
    rows_fn, working_fn = extras
    for e, rec in zip(entries, recs):
        try:
            cols.append(dict(rows_fn(e, rec)))
            lines.append(list(working_fn(e)))
        except ModelError as err:
            cols.append({})
            lines.append([f"({err})"])
    return cols, lines


def table_rows(kind_name: str, recs: list[dict], extra_cols: list[dict[str, str]]) -> list:
    """(label, key, format, tooltip) per row: the figures (the link's only when an op uses
    one), each dimension's critical value, and the kind's extra rows."""
    any_link = any(r["link"] for r in recs)
    rows = [r for r in _ROWS if any_link or r[1] not in
            ("link", "net_bytes", "net_intensity", "net_critical_intensity", "t_net")]
    rows += [(f"Critical {n}", f"critical:{n}", "crit",
              f"The value of {n} at which the op turns compute-bound (T_math equals the largest "
              f"comms time), the others held fixed. '—': never, along {n}.")
             for n in critical_order(kind_name)]
    labels: list[str] = []
    for col in extra_cols:
        labels += [k for k in col if k not in labels]
    return rows + [(k, f"extra:{k}", "extra", k) for k in labels]


def critical_order(kind_name: str) -> list[str]:
    """Dimension names with the batch dimension first."""
    k = OP_KINDS.get(kind_name)
    names = list(k.dim_names()) if k else []
    batch = [n for n in names if n == "B" or "batch" in n.lower()]
    return batch + [n for n in names if n not in batch]


class ResultsPanel(QWidget):
    """Per chip: the figures of the selected op, and the working as copyable text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.setSpacing(4)
        self.heading = QLabel()
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        f = self.heading.font()
        f.setBold(True)
        self.heading.setFont(f)
        detail = QWidget()  # (the selected op: its heading, its figures and its working)
        dlay = QVBoxLayout(detail)
        dlay.setContentsMargins(0, 0, 0, 0)
        dlay.setSpacing(4)
        top = QHBoxLayout()  # (the copy buttons beside the heading: the working may be narrow)
        top.addWidget(self.heading, 1)
        dlay.addLayout(top)
        self.splitter = ResizedSplitter(Qt.Orientation.Horizontal)
        self.splitter.resized.connect(self.share_width)
        self.splitter.addWidget(self._build_table())
        self.splitter.addWidget(self._build_working(top))
        self.splitter.setStretchFactor(0, 11)
        self.splitter.setStretchFactor(1, 9)
        self.summary = SummaryTable()
        self.outer = ResizedSplitter(Qt.Orientation.Vertical)  # (the summary, the op's detail)
        dlay.addWidget(self.splitter, 1)
        self.outer.addWidget(self.summary)
        self.outer.addWidget(detail)
        self.outer.setChildrenCollapsible(False)
        self.user_split = False  # (the user dragged the summary's edge: it stays)
        self.shown_selected: list[int] = []  # (the summary's rows last scrolled to)
        self.outer.splitterMoved.connect(lambda *_: setattr(self, "user_split", True))
        self.outer.resized.connect(lambda: (share_height(self), show_selected(self, True)))
        lay.addWidget(self.outer, 1)
        self._rows: list[tuple[str, str, str, str]] = []
        self._records: list[dict] = []
        self._text = ""

    def _build_table(self) -> QTableWidget:
        self.table = QTableWidget(0, 0)
        self.table.setAccessibleName("Results table")
        self.table.setToolTip("The selected op's figures on every checked chip. "
                              "Select cells and press Ctrl+C to copy them.")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 6)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setMinimumSectionSize(90)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTabKeyNavigation(False)  # (Tab moves on to the working; arrows move in it)
        return self.table

    def _build_working(self, row: QHBoxLayout) -> QWidget:
        self.working_view = QPlainTextEdit()
        self.working_view.setReadOnly(True)
        self.working_view.setAccessibleName("Working")
        self.working_view.setToolTip("Each formula with the numbers put in. Select and copy, or use "
                                     "Copy working, to paste the derivation into a design doc.")
        self.working_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.working_view.document().setUndoRedoEnabled(False)  # (read-only: no history kept)
        self.working_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.working_view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                                  | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        for attr, text, tip, slot in (
                ("copy_button", "Copy working",
                 "Copy the working of every chip to the clipboard as plain text.", self.copy_working),
                ("copy_table_button", "Copy table",
                 "Copy the summary and the selected op's table as tab-separated text "
                 "(pastes into a spreadsheet).",
                 self.copy_table)):
            b = QPushButton(text)
            b.setAccessibleName(text)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            row.addWidget(b, 0, Qt.AlignmentFlag.AlignTop)
            setattr(self, attr, b)
        return self.working_view

    def set_orientation(self, orientation: Qt.Orientation) -> None:
        self.splitter.setOrientation(orientation)

    # -- updating --------------------------------------------------------------------
    def update_from(self, scenario: Scenario, evaluation: Evaluation) -> None:
        """Show the selected op's figures on every chip, and the working."""
        self.summary.show_summary(summarise(evaluation.entries, evaluation.chips, scenario.selected))
        if not scenario.ops:
            self.heading.setText("No op: add one in the form.")
            self._rows, self._records = [], []
            self._resize(0, 0)
            self._set_working("")
            share_height(self)
            return
        i = max(0, min(scenario.selected, len(scenario.ops) - 1))
        op = scenario.ops[i]
        entries = evaluation.for_op(i)
        kind = OP_KINDS.get(op.kind)
        self.heading.setText(describe(op, kind.label if kind else op.kind))
        recs = [record(e.analysis, op.name, e.phase) for e in entries]
        extra_cols, extra_lines = op_extras(op.kind, entries, recs)
        rows = table_rows(op.kind, recs, extra_cols)
        self._rows, self._records = rows, recs
        self._resize(len(rows), len(recs))
        crit = critical_order(op.kind)
        bold_keys = {"bound"} | ({f"critical:{crit[0]}"} if crit else set())
        for c, (e, rec) in enumerate(zip(entries, recs)):
            name, _, derate = rec["chip_name"].partition(" \u00b7 ")  # (a named derate: below)
            derate = derate.replace(", memory", ",\nmemory") if len(derate) > 40 else derate
            head = "\n".join(t.replace(" (", "\n(", 1) for t in (name, derate) if t) \
                + (f"\n{e.phase}" if e.phase else "")
            if self.table.horizontalHeaderItem(c).text() != head:
                self.table.horizontalHeaderItem(c).setText(head)
            extra = extra_cols[c] if c < len(extra_cols) else {}
            for r, (label, key, fmt, _tip) in enumerate(rows):
                self._set_cell(self.table.item(r, c), cell_text(fmt, key, rec, extra, label), key,
                               key in bold_keys)
        for r, (label, _key, _fmt, tip) in enumerate(rows):
            head = self.table.verticalHeaderItem(r)
            if head.text() != label:
                head.setText(label)
                head.setToolTip(tip)
        self._fit_columns()
        self._set_working(working_text(op, entries, recs, extra_lines))
        share_height(self)
        show_selected(self)

    @staticmethod
    def _set_cell(item: QTableWidgetItem, text: str, key: str, bold: bool) -> None:
        if item.text() != text:
            item.setText(text)
            item.setToolTip(text)
        if item.data(KEY_ROLE) != key:
            item.setData(KEY_ROLE, key)
        colour = BOUND_COLOURS.get(text) if key == "bound" else None
        brush = item.foreground()
        if (brush.style() != Qt.BrushStyle.NoBrush) != (colour is not None) or (
                colour is not None and brush.color().name() != colour):
            item.setForeground(QBrush(QColor(colour)) if colour else QBrush())
        if item.font().bold() != bold:
            f = item.font()
            f.setBold(bold)
            item.setFont(f)

    def _fit_columns(self) -> None:
        """Columns at least as wide as their headings (chip names, phases): with more
        columns than fit (an LLM step shows two per chip) the table scrolls, not clips."""
        t = self.table
        fm = t.horizontalHeader().fontMetrics()
        need = max((fm.horizontalAdvance(line) for c in range(t.columnCount())
                    for line in t.horizontalHeaderItem(c).text().split("\n")), default=0)
        t.horizontalHeader().setMinimumSectionSize(min(max(90, need + 20), 280))
        self.share_width()

    def table_width_needed(self) -> int:
        """The table's width with every column at its least (no horizontal scrolling)."""
        t = self.table
        cols = t.columnCount() * t.horizontalHeader().minimumSectionSize()
        return (cols + t.verticalHeader().sizeHint().width() + 2 * t.frameWidth()
                + t.verticalScrollBar().sizeHint().width() + 2)

    def share_width(self) -> None:
        """Side by side, the table (the verdict) takes the width its columns need and the
        working, which wraps, the rest (at least 120 px); a split the user made stands
        while the table fits."""
        sp = self.splitter
        total = sum(sp.sizes())
        if sp.orientation() != Qt.Orientation.Horizontal or total <= 0:
            return
        table = min(self.table_width_needed(), max(total - 120, total // 2))
        if sp.sizes()[0] < table:
            sp.setSizes([table, total - table])

    def _resize(self, rows: int, cols: int) -> None:
        """The table's size, with an item in every cell and header."""
        t = self.table
        t.setRowCount(rows)
        t.setColumnCount(cols)
        for r in range(rows):
            if t.verticalHeaderItem(r) is None:
                t.setVerticalHeaderItem(r, QTableWidgetItem(""))
        for c in range(cols):
            if t.horizontalHeaderItem(c) is None:
                t.setHorizontalHeaderItem(c, QTableWidgetItem(""))
            for r in range(rows):
                if t.item(r, c) is None:
                    item = QTableWidgetItem("")
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    t.setItem(r, c, item)

    def _set_working(self, text: str) -> None:
        if text != self._text:
            self._text = text
            # Replaced through a cursor, the text stays where the user scrolled it
            # (setPlainText scrolls back to the top at every keystroke).
            view = self.working_view
            at = view.verticalScrollBar().value()
            cur = QTextCursor(view.document())
            cur.select(QTextCursor.SelectionType.Document)
            cur.insertText(text)
            # wrapped lines are laid out lazily (a block counts as one line until then):
            # lay them out now, or the scroll position drifts as they are
            layout = view.document().documentLayout()
            block = view.document().begin()
            while block.isValid():
                layout.ensureBlockLayout(block)
                block = block.next()
            view.verticalScrollBar().setValue(at)

    # -- reading ---------------------------------------------------------------------
    def working_text(self) -> str:
        return self._text

    def records(self) -> list[dict]:
        return list(self._records)

    def cell(self, row_label: str, column: int) -> str:
        for r, row in enumerate(self._rows):
            if row[0] == row_label:
                return self.table.item(r, column).text()
        raise KeyError(row_label)

    def table_text(self) -> str:
        t = self.table
        head = [""] + [t.horizontalHeaderItem(c).text().replace("\n", " ")
                       for c in range(t.columnCount())]
        lines = ["\t".join(head)]
        for r in range(t.rowCount()):
            lines.append("\t".join([t.verticalHeaderItem(r).text()]
                                   + [t.item(r, c).text() for c in range(t.columnCount())]))
        return "\n".join(lines) + "\n"

    def copy_working(self) -> None:
        QGuiApplication.clipboard().setText(self._text)

    def copy_table(self) -> None:
        QGuiApplication.clipboard().setText(self.summary.text() + "\n" + self.table_text())


def describe(op, kind_label: str) -> str:
    dims = ", ".join(f"{k}={format_number(v)}" for k, v in op.full_dims().items())
    dts = " ".join(f"{r}:{v}" for r, v in op.dtypes.items())
    link = "each chip's scale-up link" if op.shard and op.shard.link == SCALE_UP else (
        op.shard.link if op.shard else "")
    shard = f" · split {op.shard.axis} over {op.shard.n} chips ({link})" if op.shard_obj() else ""
    return f"{op.name} — {kind_label} · {dims}{' · ' + dts if dts else ''}{shard}"


def working_text(op, entries, recs: list[dict], extra_lines: list[list[str]]) -> str:
    """The working of every chip (and phase), one block each."""
    lines: list[str] = []
    for c, e in enumerate(entries):
        lines.append(f"{op.name}{' · ' + e.phase if e.phase else ''} on {recs[c]['chip_name']}")
        lines.extend("  " + ln for ln in working(e.analysis))
        if c < len(extra_lines):
            lines.extend("  " + ln for ln in extra_lines[c])
        lines.append("")
    if not entries:
        lines.append("No results: check a chip in the Chips panel (or see the notice above the plot).")
    return "\n".join(lines).rstrip() + "\n"
