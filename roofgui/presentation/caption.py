"""The caption stamped under an exported plot: ops, shapes, dtypes, chips and sources.

Pure text from the model (no Qt), so it is the same from the window and the
command line, and testable on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from roofgui.model.chips import SCALE_UP
from roofgui.model.ops import OP_KINDS
from roofgui.model.scenario import OpSpec, Scenario
from roofgui.model.evaluate import Evaluation
from roofgui.model.units import format_si


def _num(v: float) -> str:
    v = float(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.4g}"


def op_summary(op: OpSpec) -> str:
    """``matmul: B=256, D=8192, F=8192 · bf16`` (dtypes by role when they differ)."""
    kind = OP_KINDS.get(op.kind)
    parts = [op.name if op.name == op.kind else f"{op.name} ({op.kind})"]
    if kind is not None:
        dims = op.full_dims()
        parts[0] += ": " + ", ".join(f"{k}={_num(v)}" for k, v in dims.items())
        roles = [r for r in kind.dtype_roles]
    else:
        roles = list(op.dtypes)
    dts = {r: op.dtypes.get(r, "bf16") for r in roles}
    if dts:
        if len(set(dts.values())) == 1:
            parts.append(next(iter(dts.values())))
        else:
            names = {"x": "x", "w": "weights", "out": "out", "compute": "compute"}
            parts.append(", ".join(f"{names.get(r, r)} {d}" for r, d in dts.items()))
    if op.shard is not None and op.shard.n > 1:
        link = "each chip's scale-up link" if op.shard.link == SCALE_UP else op.shard.link
        parts.append(f"{op.shard.axis} sharded over {op.shard.n} chips ({link})")
    for k, v in op.params.items():
        if isinstance(v, (str, int, float)) and not isinstance(v, bool) and str(v):
            parts.append(f"{k}={v}")
    return " · ".join(parts)


def short_citation(text: str) -> str:
    """A citation without commit hashes and dates: ``Author, Title — url``."""
    title, sep, url = text.partition(" — ")
    # drop parentheticals (commit ids, snapshots, dates) from the title part
    prev = None
    while prev != title:
        prev = title
        title = re.sub(r"\s*\([^()]*\)", "", title)
    title = title.strip().rstrip(",;")
    url = re.sub(r"\s*,\s*", ", ", re.sub(r"https?://", "", url.strip()))
    return f"{title} — {url}" if sep and url else title


@dataclass(frozen=True)
class Caption:
    """The caption's paragraphs: ops, chips (with the figures used) and sources."""

    ops: list[str]
    chips: str
    sources: str

    def paragraphs(self) -> list[str]:
        out = list(self.ops)
        if self.chips:
            out.append(self.chips)
        if self.sources:
            out.append(self.sources)
        return out

    def text(self) -> str:
        return "\n".join(self.paragraphs())


def build_caption(scenario: Scenario, evaluation: Evaluation) -> Caption:
    """Every op with its shapes and dtypes; every chip with the figures plotted and
    their sources, numbered in order of first use."""
    ops = [op_summary(op) for op in scenario.ops]
    ref_text: list[str] = []

    def cite(chip, key: str) -> str:
        short = short_citation(chip.sources.get(key, key))
        if short not in ref_text:
            ref_text.append(short)
        return f"[{ref_text.index(short) + 1}]"

    chip_parts = [f"{chip.label()}: {', '.join(chip_figures(chip, evaluation, cite))}"
                  for chip in evaluation.chips]
    chips = ""
    if chip_parts:
        chips = "Chips — " + "; ".join(chip_parts)
        extras = what_if_notes(scenario)
        if extras:
            chips += " (" + "; ".join(extras) + ")"
    sources = ""
    if ref_text:
        sources = "Sources: " + "  ".join(f"[{i}] {t}" for i, t in enumerate(ref_text, 1))
    return Caption(ops, chips, sources)


def chip_figures(chip, evaluation: Evaluation, cite) -> list[str]:
    """The figures of ``chip`` its ops were plotted with (peaks, HBM, links), each with
    its source's number from ``cite(chip, source key)``; with no op on it, its headline
    bf16 peak and HBM bandwidth."""
    entries = [e for e in evaluation.entries if e.chip_id == chip.id]
    figs: list[str] = []
    seen: set[str] = set()
    for e in entries:
        f = e.analysis.figures
        pk = f.peak_info
        table = chip.matrix if pk.unit == "matrix" else chip.vector
        k = f"peak:{pk.unit}:{pk.key}"
        if k not in seen and pk.key in table:
            seen.add(k)
            unit = "" if pk.unit == "matrix" else " vector"
            figs.append(f"{format_si(f.peak, 'FLOP/s')} {pk.key}{unit} {cite(chip, table[pk.key].source)}")
        if "hbm" not in seen:
            seen.add("hbm")
            figs.append(f"HBM {format_si(f.hbm_bandwidth, 'B/s')} {cite(chip, chip.hbm_bandwidth.source)}")
        link = f.link_name or e.analysis.work.link  # "scale-up" resolved per chip
        if link and f.link_bandwidth and f"link:{link}" not in seen and link in chip.links:
            seen.add(f"link:{link}")
            figs.append(f"{link} {format_si(f.link_bandwidth, 'B/s')} "
                        f"{cite(chip, chip.links[link].bandwidth.source)}")
    if not entries:  # no op runs here: the headline figures are what is drawn
        try:
            p = chip.peak("bf16")
            figs.append(f"{format_si(p.value, 'FLOP/s')} {p.key} {cite(chip, chip.matrix[p.key].source)}")
        except Exception:  # noqa: BLE001 - a chip without bf16 still gets its HBM
            pass
        figs.append(f"HBM {format_si(chip.hbm_bandwidth.value, 'B/s')} "
                    f"{cite(chip, chip.hbm_bandwidth.source)}")
    return figs


def what_if_notes(scenario: Scenario) -> list[str]:
    """What-if multipliers and derating in force, as short notes."""
    wi = scenario.what_if
    extras = []
    if (wi.peak, wi.hbm, wi.link) != (1.0, 1.0, 1.0):
        extras.append("what-if " + ", ".join(
            f"{n} ×{v:g}" for n, v in (("peak", wi.peak), ("HBM", wi.hbm), ("link", wi.link))
            if v != 1.0))
    if scenario.derate:
        extras.append("peaks derated to each chip's achievable fraction")
    return extras
