"""What the Measured panel says of a calibration fit and of an applied derate (no Qt)."""

from __future__ import annotations

from roofgui.model.calibrate import METHOD
from roofgui.model.derate import Derate
from roofgui.model.measured.fit import ChipFit
from roofgui.model.units import format_time

#: Column titles of the panel's fit table, in order (see :func:`fit_cells`).
FIT_COLUMNS = ("Chip", "Kernels", "Compute", "Memory", "Error before \u2192 after",
               "Applied derate")
DASH = "\u2014"


def percent(v: float | None) -> str:
    return DASH if v is None else f"{v:.1%}"


def compute_text(fit: ChipFit) -> str:
    """The fitted compute fraction, each dtype's when they were fitted apart."""
    f = fit.fractions
    if f.compute is None:
        return f"{DASH} (no compute-bound kernel)"
    if f.by_group:
        return " \u00b7 ".join(f"{k} {v:.1%}" for k, v in f.by_group)
    return percent(f.compute)


def memory_text(fit: ChipFit) -> str:
    f = fit.fractions
    return f"{DASH} (no memory-bound kernel)" if f.memory is None else percent(f.memory)


def error_text(fit: ChipFit) -> str:
    if fit.error_before is None or fit.error_after is None:
        return DASH
    return f"{fit.error_before:.1%} \u2192 {fit.error_after:.1%}"


def fit_cells(chip_name: str, fit: ChipFit | None, derate: Derate | None) -> tuple[str, ...]:
    """A row of the fit table: a chip's fit (or dashes, when only a derate is applied)."""
    applied = DASH if derate is None else f"'{derate.name}' ({derate.fractions_text()})"
    if fit is None:
        return (chip_name, DASH, DASH, DASH, DASH, applied)
    return (chip_name, str(fit.count), compute_text(fit), memory_text(fit), error_text(fit),
            applied)


def fit_detail(fit: ChipFit) -> str:
    """A paragraph on one chip's fit: what it used, left out, and how it was fitted."""
    f = fit.fractions
    parts = [f"{fit.chip.name}: {fit.count} kernel{'s' if fit.count != 1 else ''} fitted "
             f"({f.compute_rows} compute-bound, {f.memory_rows} memory-bound"
             + (f", {f.floor_rows} at a launch floor of {format_time(f.floor)}, not part of "
                "a derate" if f.floor is not None else "") + ")"]
    if fit.skipped:
        parts.append(f"{fit.skipped} left out (no FLOPs or no bytes)")
    if len(fit.dtypes) > 1:
        parts.append("dtypes: " + ", ".join(f"{k} \u00d7{n}" for k, n in fit.dtypes))
    if fit.error_before is not None:
        parts.append(f"error of the roofline against the measured times (MAPE): "
                     f"{fit.error_before:.1%} as specified, {fit.error_after:.1%} derated")
    problem = fit.problem()
    if problem:
        parts.append(f"cannot be applied: {problem}")
    return "; ".join(parts) + f". Fit: {METHOD}."


def apply_text(fit: ChipFit, replaces: Derate | None) -> str:
    """What the Apply dialog says it will do."""
    d = fit.derate("\u2026")
    text = (f"Lower {fit.chip.name}'s roofs to the fractions fitted from its {fit.count} "
            f"measured kernel{'s' if fit.count != 1 else ''}: {d.fractions_text()}. "
            "The derate is saved with the scenario and shown in the chip's name wherever it "
            "appears; Edit \u25b8 Undo or the panel's Remove Derate takes it off.")
    if fit.fractions.compute is None or fit.fractions.memory is None:
        text += " A roof no kernel was bound by is left at 1."
    if replaces is not None:
        text += f" It replaces the derate '{replaces.name}' of this chip."
    return text
