"""The window shows slow request and token rates as decimals, never "mreq/s"."""

from __future__ import annotations

import math
import sys
from pathlib import Path

from gui_helpers import flush

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_rate_units import MILLI_RATE, slow_llm  # noqa: E402

TAB_SWEEP = 1


def test_results_working_and_llm_sweep_read_slow_rates_as_decimals(window):
    window.doc.load(slow_llm())
    flush(window)
    res = window.results
    assert res.cell("Per-request", 0).endswith(" req/s")
    assert res.cell("Per-request", 0).startswith("0.0")
    assert not MILLI_RATE.search(res.table_text())
    assert not MILLI_RATE.search(res.working_text())
    # the LLM throughput view: its axis reads 0.5, not 500 m, below 1 token/s
    window.tabs.setCurrentIndex(TAB_SWEEP)
    y = window.sweep_controls.y_combo
    y.setCurrentIndex(y.findData("throughput"))
    flush(window)
    plot = window.llm_sweep_plot
    assert plot.geometry.unit == "tok/s"
    axis = plot.getPlotItem().getAxis("left")
    assert axis.tickStrings([math.log10(0.5), 0.0, 3.0], 1.0, 1.0) == ["0.5", "1", "1 k"]
    tip = plot.geometry.lines[0].marker_tooltip  # (the mark at the op's own batch, B = 1)
    assert "throughput: " in tip and " tok/s" in tip and not MILLI_RATE.search(tip)
