"""The LLM step's extra results: JSON fields, table rows and working lines of one (chip, phase).

Shared by the window's results panel and ``roofgui analyze --op llm``.
"""

from __future__ import annotations

from roofgui.model import llm
from roofgui.model.units import format_number, format_si, format_time


def summary(entry) -> dict:
    return llm.llm_summary(entry.op, entry.analysis.chip, figures=entry.analysis.figures)


def record_extras(entry) -> dict:
    """The LLM fields of one (chip, phase) JSON record."""
    return llm.record_fields(summary(entry), entry.phase)


def span(lo, hi, unit: str) -> str:
    return f"{format_si(lo, unit)} … {format_si(hi, unit)}"


def table_rows(entry, rec: dict) -> list[tuple[str, str]]:
    """LLM rows under the roofline rows of one (chip, phase) table."""
    r = rec
    mem = (f"{format_si(r['memory_bytes_per_chip'], 'B')} of {format_si(r['hbm_capacity'], 'B')} — "
           + ("fits" if r["fits"] else "DOES NOT FIT"))
    crit = r["critical_batch"]
    rows = [
        ("Model", f"{r['model_name']} ({r['model']})"),
        ("B, p, d, chips", f"{format_number(r['batch'])}, {format_number(r['prefill'])}, "
                           f"{format_number(r['decode'])}, {r['chips']}"),
        ("Dtypes w/act/KV", f"{r['w_dtype']} / {r['act_dtype']} / {r['kv_dtype']} "
                            f"(compute {r['compute_dtype']})"),
        ("Tokens per step", format_number(r["tokens_per_step"])),
        ("t_compute", format_time(r["t_compute"])),
        (f"t_mem (shown: {r['t_mem_model']})", format_time(r["t_mem"])),
        ("t_mem note / refined", f"{format_time(r['t_mem_note'])} / {format_time(r['t_mem_refined'])}"),
        (f"t_network ({r['t_net_model']})", format_time(r["t_network"])),
        ("Step lower (max)", format_time(r["t_step_lower"])),
        ("Step upper (sum)", format_time(r["t_step_upper"])),
        ("Step bound", r["step_bound"]),
        ("Critical batch", "never compute-bound" if crit is None else format_number(crit)),
        ("Memory per chip", mem),
        ("Largest batch", f"{format_number(r['max_batch'])} ({r['phase']}); "
                          f"{format_number(r['max_batch_all_phases'])} both phases"),
        ("Throughput total", span(r["throughput_total_min"], r["throughput_total_max"], "tok/s")),
        ("Per-request", span(r["throughput_per_request_min"], r["throughput_per_request_max"], "req/s")),
        ("Decode throughput", span(r["throughput_decode_min"], r["throughput_decode_max"], "tok/s")),
        ("Time to first token", f"{format_time(r['ttft_lower'])} … {format_time(r['ttft_upper'])}"),
        ("Time per out token", f"{format_time(r['tpot_lower'])} … {format_time(r['tpot_upper'])}"),
    ]
    return rows


def working_lines(entry) -> list[str]:
    """The LLM working for one (chip, phase): the shared lines, this phase's step and the serving cycle."""
    other = [f"── {ph} step" for ph in llm.PHASES if ph != entry.phase]
    out, skip = [], False
    for line in summary(entry)["working"]:
        if line.startswith("──"):
            skip = any(line.startswith(o) for o in other)
        elif not line.startswith("  "):
            skip = False
        if not skip:
            out.append(line)
    return out


def table_rows_with_extras(entry, rec: dict) -> list[tuple[str, str]]:
    """:func:`table_rows` for a roofline record that lacks the LLM fields yet."""
    r = dict(rec)
    r.update(record_extras(entry))
    return table_rows(entry, r)
