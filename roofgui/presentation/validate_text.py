"""The text ``roofgui validate`` prints: one line per published measurement (measured vs
bound, their ratio, the leave-one-out calibrated prediction), the fitted calibrations,
and a summary with the calibrated MAPE."""

from __future__ import annotations

from roofgui.model.calibrate import Calibration
from roofgui.model.validate import Report, RowResult


def number(v: float | None) -> str:
    """A figure to 4 significant digits (a dash for none)."""
    if v is None:
        return "\u2014"
    return f"{v:,.4g}" if abs(v) < 1e4 else f"{v:,.0f}"


def row_line(r: RowResult) -> str:
    """``id  what: measured unit vs bound (ratio xN) calibrated ... [BEATS ITS BOUND]``."""
    row = r.row
    side = "upper" if row.quantity == "throughput" else "lower"
    flag = "" if r.consistent else "  BEATS ITS BOUND: a chip figure or byte count is wrong"
    return (f"{row.id}  [{row.chip}] {row.what}: measured {number(row.measured)} {row.unit}, "
            f"{side} bound {number(r.bound)} {row.unit}, ratio {r.ratio:.3g}, "
            f"calibrated {number(r.calibrated)} {row.unit} (leave-one-out){flag}")


def calibration_line(c: Calibration, mape: float | None = None) -> str:
    loo = "" if mape is None else f"; leave-one-out MAPE {mape:.1%}"
    return f"  {c.describe()}{loo}"


def summary_lines(report: Report) -> list[str]:
    """The summary: counts, chips, the calibrated MAPE and every inconsistent row."""
    mape = report.mape_calibrated
    chips = sorted({r.row.chip for r in report.rows})
    lines = [f"{len(report.rows)} measurements on {len(chips)} chips ({', '.join(chips)}); "
             "calibrated MAPE (leave-one-out) "
             + ("\u2014" if mape is None else f"{mape:.1%}")]
    bad = report.inconsistent
    if bad:
        lines.append(f"{len(bad)} measurement{'s' if len(bad) != 1 else ''} faster than "
                     "the bound (a wrong chip figure or byte count): "
                     + ", ".join(f"{r.row.id} ({r.row.where})" for r in bad))
    else:
        lines.append("every measurement is at or above its bound (ratio >= 1)")
    return lines


def report_lines(report: Report) -> list[str]:
    """Everything ``roofgui validate`` prints, line by line."""
    lines = [row_line(r) for r in report.rows]
    lines.append("")
    lines.append("Calibrations fitted to every row of each group (shown, never applied "
                 "unless passed explicitly):")
    lines.extend(calibration_line(c, report.group_mape(c)) for c in report.calibrations)
    lines.append("")
    lines.extend(summary_lines(report))
    return lines
