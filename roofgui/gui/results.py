"""The results panel: the selected op's figures on every chip, and the working.

Every figure comes from :func:`roofgui.presentation.report.record` and every line of
the working from :func:`roofgui.presentation.report.working`; this module only lays
them out.  Table items are created when the table grows and reused after.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QGuiApplication, QTextCursor
from PySide6.QtWidgets import (QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit,
                               QPushButton, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout,
                               QWidget)

from roofgui.model.chips import SCALE_UP
from roofgui.model.errors import ModelError
from roofgui.model.ops import OP_KINDS
from roofgui.presentation.report import record, working
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

_KEY_ROLE = int(Qt.ItemDataRole.UserRole) + 1
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


def _extras_for(kind_name: str):
    return RESULT_EXTRAS.get(kind_name)


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
        lay.addWidget(self.heading)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.table = QTableWidget(0, 0)
        self.table.setAccessibleName("Results table")
        self.table.setToolTip("The selected op's figures on every checked chip. "
                              "Select cells and press Ctrl+C to copy them.")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(
            self.table.fontMetrics().height() + 6)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setMinimumSectionSize(90)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.splitter.addWidget(self.table)

        right = QWidget()
        rl = QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(2)
        self.working_view = QPlainTextEdit()
        self.working_view.setReadOnly(True)
        self.working_view.setAccessibleName("Working")
        self.working_view.setToolTip("Each formula with the numbers put in. Select and copy, or use "
                                     "Copy working, to paste the derivation into a design doc.")
        self.working_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.working_view.document().setUndoRedoEnabled(False)  # (read-only: no history kept)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.working_view.setFont(mono)
        self.working_view.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                                  | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        rl.addWidget(self.working_view, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        self.copy_button = QPushButton("Copy working")
        self.copy_button.setAccessibleName("Copy working")
        self.copy_button.setToolTip("Copy the working of every chip to the clipboard as plain text.")
        self.copy_button.clicked.connect(self.copy_working)
        row.addWidget(self.copy_button)
        self.copy_table_button = QPushButton("Copy table")
        self.copy_table_button.setAccessibleName("Copy table")
        self.copy_table_button.setToolTip("Copy the results table as tab-separated text "
                                          "(pastes into a spreadsheet).")
        self.copy_table_button.clicked.connect(self.copy_table)
        row.addWidget(self.copy_table_button)
        rl.addLayout(row)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(0, 11)
        self.splitter.setStretchFactor(1, 9)
        lay.addWidget(self.splitter, 1)
        self._rows: list[tuple[str, str, str, str]] = []
        self._records: list[dict] = []
        self._shown: dict[tuple[int, int], tuple[str, str, bool]] = {}
        self._texts: dict[tuple, str] = {}
        self._text = ""
        self._filled: tuple[int, int] = (0, 0)
        self._header_cols = -1
        self._shown_rows: list[tuple[str, str, str, str]] = []
        #: (analysis, record, working lines) per column as shown, reused while unchanged
        self._per_analysis: list[tuple[object, dict, list[str]]] = []
        #: (op, [(analysis, phase)]) as shown: the same again changes nothing
        self._last: tuple | None = None
        #: updates skipped as unchanged (tests)
        self.skipped = 0

    def set_orientation(self, orientation: Qt.Orientation) -> None:
        self.splitter.setOrientation(orientation)

    # -- updating --------------------------------------------------------------------
    def update_from(self, scenario: Scenario, evaluation: Evaluation) -> None:
        """Show the selected op's figures and working.  Work whose inputs did not change is
        skipped: nothing at all when the op and its analyses are the ones shown (the model
        reuses the analyses of unchanged ops); the record and working of each unchanged
        analysis; the formatting of unchanged figures; Qt calls for unchanged cells."""
        if not scenario.ops:
            self._last = None
            self.heading.setText("No op: add one in the form.")
            self._resize(0, 0)
            self._set_working("")
            return
        i = max(0, min(scenario.selected, len(scenario.ops) - 1))
        op = scenario.ops[i]
        entries = evaluation.for_op(i)
        last = (op, [(e.analysis, e.phase) for e in entries])
        if self._last is not None and _same_shown(self._last, last):
            self.skipped += 1
            return
        kind = OP_KINDS.get(op.kind)
        self.heading.setText(_describe(op, kind.label if kind else op.kind))
        memo = {id(a): (a, rec, lines) for a, rec, lines in self._per_analysis}
        per: list[tuple[object, dict, list[str]]] = []
        for e in entries:
            hit = memo.get(id(e.analysis))
            if hit is not None and hit[0] is e.analysis and hit[1]["op"] == op.name \
                    and hit[1]["phase"] == e.phase:
                per.append(hit)
            else:
                per.append((e.analysis, record(e.analysis, op.name, e.phase),
                            ["  " + ln for ln in working(e.analysis)]))
        self._per_analysis = per
        recs = [rec for _, rec, _ in per]
        crit_names = critical_order(op.kind)
        any_link = any(r["link"] for r in recs)
        rows = [r for r in _ROWS if any_link or r[1] not in
                ("link", "net_bytes", "net_intensity", "net_critical_intensity", "t_net")]
        rows += [(f"Critical {n}", f"critical:{n}", "crit",
                  f"The value of {n} at which the op turns compute-bound (T_math equals the largest "
                  f"comms time), the others held fixed. '—': never, along {n}.")
                 for n in crit_names]
        extras = _extras_for(op.kind)
        extra_cols: list[dict[str, str]] = []
        extra_lines: list[list[str]] = []
        if extras is not None:
            rows_fn, working_fn = extras
            for e, rec in zip(entries, recs):
                try:
                    extra_cols.append(dict(rows_fn(e, rec)))
                    extra_lines.append(list(working_fn(e)))
                except ModelError as err:
                    extra_cols.append({})
                    extra_lines.append([f"({err})"])
            labels: list[str] = []
            for col in extra_cols:
                labels += [k for k in col if k not in labels]
            rows += [(k, f"extra:{k}", "extra", k) for k in labels]
        self._rows = rows
        self._records = recs
        self._resize(len(rows), len(recs))
        shown = self._shown  # (text, key, bold) per cell as last set: Qt is asked only for changes
        texts = self._texts  # figure → text, for the figures that did not change
        if len(texts) > 4096:
            texts.clear()
        bold_key = f"critical:{crit_names[0]}" if crit_names else None
        # per row: how its text is found (0: a formatted figure, 1: a critical value, 2: an
        # extra), with what (the record key a figure's text also depends on, the dimension,
        # the label), and whether it is bold
        specs = []
        for r, (label, key, fmt, tip) in enumerate(rows):
            if key.startswith("critical:"):
                how, arg = 1, key[9:]
            elif key.startswith("extra:"):
                how, arg = 2, label
            else:
                how, arg = 0, {"peak": "peak_dtype", "link": "link_bandwidth"}.get(fmt)
            specs.append((r, key, fmt, how, arg, key == "bound" or key == bold_key))
        headers_changed = False
        table = self.table
        for c, (e, rec) in enumerate(zip(entries, recs)):
            head = rec["chip_name"].replace(" (", "\n(", 1) + (f"\n{e.phase}" if e.phase else "")
            hi = table.horizontalHeaderItem(c)
            if hi.text() != head:
                hi.setText(head)
                headers_changed = True
            crit = rec["critical"]
            for r, key, fmt, how, arg, bold in specs:
                if how == 0:
                    v = rec.get(key)
                    memo_key = (fmt, v, rec.get(arg)) if arg else (fmt, v)
                    text = texts.get(memo_key)
                    if text is None:
                        text = texts[memo_key] = _fmt(fmt, v, rec)
                elif how == 1:
                    v = crit.get(arg)
                    text = "—" if v is None else format_number(v)
                else:
                    text = extra_cols[c].get(arg, "—")
                prev = shown.get((r, c))
                if prev is not None and prev[0] == text and prev[1] == key and prev[2] == bold:
                    continue
                shown[(r, c)] = (text, key, bold)
                item = table.item(r, c)
                if prev is None or prev[0] != text:
                    item.setText(text)
                    item.setToolTip(text)
                if prev is None or prev[1] != key:
                    item.setData(_KEY_ROLE, key)
                if key == "bound" or prev is None or prev[1] == "bound":
                    colour = BOUND_COLOURS.get(text) if key == "bound" else None
                    item.setForeground(QBrush(QColor(colour)) if colour else QBrush())
                if (prev is None or prev[2] != bold) and item.font().bold() != bold:
                    f = item.font()
                    f.setBold(bold)
                    item.setFont(f)
        if headers_changed or self._header_cols != len(recs):
            # columns at least as wide as their headings (chip names, phases): with more
            # columns than fit (an LLM step shows two per chip) the table scrolls, not clips
            self._header_cols = len(recs)
            hh = self.table.horizontalHeader()
            fm = hh.fontMetrics()
            need = max((fm.horizontalAdvance(line) for c in range(len(recs))
                        for line in self.table.horizontalHeaderItem(c).text().split("\n")), default=0)
            width = min(max(90, need + 20), 280)
            if hh.minimumSectionSize() != width:
                hh.setMinimumSectionSize(width)
        if rows != self._shown_rows:
            self._shown_rows = rows
            for r, (label, key, fmt, tip) in enumerate(rows):
                vi = table.verticalHeaderItem(r)
                if vi.text() != label:
                    vi.setText(label)
                    vi.setToolTip(tip)
        lines: list[str] = []
        for c, e in enumerate(entries):
            lines.append(f"{op.name}{' · ' + e.phase if e.phase else ''} on {recs[c]['chip_name']}")
            lines.extend(per[c][2])
            if c < len(extra_lines):
                lines.extend("  " + ln for ln in extra_lines[c])
            lines.append("")
        if not entries:
            lines.append("No results: check a chip in the Chips panel (or see the notice above the plot).")
        self._set_working("\n".join(lines).rstrip() + "\n")
        # (the op is kept as shown: snapshots are never changed in place, see document.py)
        self._last = last

    def _resize(self, rows: int, cols: int) -> None:
        t = self.table
        if t.rowCount() != rows:
            old = t.rowCount()
            t.setRowCount(rows)
            self._shown_rows = []  # (new header items: labels to set)
            for r in range(old, rows):
                t.setVerticalHeaderItem(r, QTableWidgetItem(""))
        if t.columnCount() != cols:
            old = t.columnCount()
            t.setColumnCount(cols)
            for c in range(old, cols):
                t.setHorizontalHeaderItem(c, QTableWidgetItem(""))
        if self._filled == (rows, cols):
            return  # every cell has its item already
        self._filled = (rows, cols)
        for r in range(rows):
            for c in range(cols):
                if t.item(r, c) is None:
                    item = QTableWidgetItem("")
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    t.setItem(r, c, item)
                    self._shown.pop((r, c), None)  # a fresh, empty cell

    def _set_working(self, text: str) -> None:
        if text != self._text:
            self._text = text
            # Replaced through a cursor, the text stays where the user scrolled it
            # (setPlainText scrolls back to the top at every keystroke), and it costs less.
            cur = QTextCursor(self.working_view.document())
            cur.select(QTextCursor.SelectionType.Document)
            cur.insertText(text)

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
        QGuiApplication.clipboard().setText(self.table_text())


def _same_shown(a: tuple, b: tuple) -> bool:
    """Whether (op, [(analysis, phase)]) ``b`` shows what ``a`` showed: an equal op, the very
    same analyses (the model reuses an unchanged op's) in the same order."""
    return (a[0] == b[0] and len(a[1]) == len(b[1])
            and all(x is y and p == q for (x, p), (y, q) in zip(a[1], b[1])))


def _describe(op, kind_label: str) -> str:
    dims = ", ".join(f"{k}={format_number(v)}" for k, v in op.full_dims().items())
    dts = " ".join(f"{r}:{v}" for r, v in op.dtypes.items())
    link = "each chip's scale-up link" if op.shard and op.shard.link == SCALE_UP else (
        op.shard.link if op.shard else "")
    shard = f" · split {op.shard.axis} over {op.shard.n} chips ({link})" if op.shard_obj() else ""
    return f"{op.name} — {kind_label} · {dims}{' · ' + dts if dts else ''}{shard}"

