"""The LLM step's extra results: JSON fields, table rows and working lines of one (chip, phase).

Shared by the window's results panel and ``roofgui analyze --op llm``.  The numbers come
from :func:`roofgui.model.llm.llm_summary`; the working (each formula with its numbers
put in) is written here.
"""

from __future__ import annotations

from typing import Any, Mapping

from roofgui.model import llm
from roofgui.model.units import format_capacity, format_number, format_rate, format_si, format_time


def summary(entry) -> dict:
    return llm.llm_summary(entry.op, entry.analysis.chip, figures=entry.analysis.figures)


def _g(v) -> str:
    return "—" if v is None else f"{float(v):.4g}"


def _bytes(v) -> str:
    return format_si(v, "B")


def _time(v) -> str:
    return "—" if v is None else format_time(v)


def working(s: Mapping[str, Any], inp: llm.LLMInputs) -> list[str]:
    """The formula of every term of a summary ``s`` (of the op ``inp`` describes) with its
    numbers put in: the inputs, each phase's step, the serving cycle."""
    lines = _working_inputs(s, inp)
    for ph in llm.PHASES:
        lines += _working_phase(s, inp, ph)
    lines += _working_serving(s)
    lines += [f"Source: {x}" for x in inp.model.citation_lines()]
    lines += [f"Note: {x}" for x in s["notes"]]
    return lines


def _working_inputs(s: Mapping[str, Any], inp: llm.LLMInputs) -> list[str]:
    cfg, n, dt = inp.model, inp.n, inp.dtypes
    sw, sa, skv = dt["w"].bytes, dt["x"].bytes, dt["kv"].bytes
    c, i = s["chip"], s["inputs"]
    N = format_number
    L, D, F, V = cfg.layers, cfg.hidden_size, cfg.ffn_size, cfg.vocab_size
    return [
        f"Model: {cfg.name} — D = {D}, L = {L}, heads {cfg.heads}, KV heads {cfg.kv_heads} "
        f"(group {cfg.group_size}), head_dim {cfg.head_dim}, F = {F}, V = {V}"
        + (f", {cfg.experts} experts, top-{cfg.top_k}" if cfg.experts > 1 else ""),
        f"P_total = {N(cfg.params_total)}, P_active = {N(cfg.params_active)}",
        f"Inputs: B = {N(i['batch'])} requests, p = {N(i['prefill'])}, d = {N(i['decode'])} tokens, "
        f"n = {n} chip(s)"
        + (f" over {i['link']} ({format_si(c['link_bandwidth'], 'B/s')})" if n > 1 else ""),
        f"Dtypes: weights {dt['w'].name} ({sw:g} B), activations {dt['x'].name} ({sa:g} B), "
        f"KV cache {dt['kv'].name} ({skv:g} B), compute {dt['compute'].name} "
        f"→ peak {format_si(c['peak_flops'], 'FLOP/s')} ({c['peak_dtype']})",
        f"Weights per chip = P_total·S_w/n = {_g(cfg.params_total)} · {sw:g} / {n} = "
        f"{_bytes(s['weight_bytes_per_chip'])}",
        f"KV cache per token = 2·L·n_kv·head_dim·S_kv = 2 · {L} · {cfg.kv_heads} · {cfg.head_dim} · {skv:g} "
        f"= {_bytes(s['kv_bytes_per_token'])}; per chip ({s['kv_heads_per_chip']} of {cfg.kv_heads} KV heads) "
        f"{_bytes(s['kv_bytes_per_token_per_chip'])}",
        f"t_mem shown: {inp.t_mem} ("
        + ("the note's GPU_mem / MemBW, the whole HBM every step" if inp.t_mem == "note"
           else "weights + KV cache actually read and written, / MemBW") + ")",
        f"t_network: {inp.t_net} — {llm.T_NET_LABELS[inp.t_net]}",
        "  Collectives: tensor parallel (Megatron-style), 2 all-reduces of the B_dense × D activations "
        "per layer; a ring all-reduce sends 2(n−1)/n of the tensor per chip, at the chip file's one-way "
        "per-chip link bandwidth (a switch such as NVSwitch: the whole one-way total; a mesh such as "
        "xGMI: several rings at once; a torus such as ICI: one link each way along one axis, one "
        "direction used — a bidirectional ring would halve t_network)",
    ]


def _working_phase(s: Mapping[str, Any], inp: llm.LLMInputs, ph: str) -> list[str]:
    """One phase's step: FLOPs, the three times, the bounds, intensity, critical batch."""
    cfg, n = inp.model, inp.n
    sa = inp.dtypes["x"].bytes
    c, r = s["chip"], s["phases"][ph]
    g, B_, T = _g, _bytes, _time
    D, L = cfg.hidden_size, cfg.layers
    tok = "B·p" if ph == "prefill" else "B"
    hbm = format_si(c["hbm_bandwidth"], "B/s")
    if ph == "prefill":
        kv = f"KV written B·p·{B_(s['kv_bytes_per_token_per_chip'])} = {B_(r['kv_write_bytes'])}"
    else:
        kv = (f"KV read B·(p + (d−1)/2)·{B_(s['kv_bytes_per_token_per_chip'])} = {B_(r['kv_read_bytes'])} "
              f"+ KV written {B_(r['kv_write_bytes'])}")
    lines = [
        f"── {ph} step: B_dense = {tok} = {format_number(r['tokens'])} tokens",
        f"  FLOPs per chip = matmuls 2·(weights used)·B_dense/n + attention (QKᵀ, AV) "
        f"4·heads·head_dim·context·B_dense·L/n = {g(r['flops'] - r['attention_flops'])} + "
        f"4 · {cfg.heads} · {cfg.head_dim} · {g(_ctx(s, ph))} · {g(r['tokens'])} · {L} / {n} "
        f"= {g(r['flops'])}",
        f"  t_compute = {g(r['flops'])} / {format_si(c['peak_flops'], 'FLOP/s')} = {T(r['t_compute'])}",
        f"  t_mem (note) = GPU_mem / MemBW = {B_(c['hbm_capacity'])} / {hbm} = {T(r['t_mem_note'])}",
        f"  t_mem (refined) = (weights {B_(r['weight_bytes'])} + {kv}) / {hbm} = {T(r['t_mem_refined'])}",
    ]
    if cfg.experts > 1:
        lines.append(f"  Experts read per layer = E·(1 − (1 − k/E)^T) = {cfg.experts}·(1 − (1 − "
                     f"{cfg.top_k}/{cfg.experts})^{g(r['tokens'])}) = {r['experts_read']:.3g} of "
                     f"{cfg.experts} (uniform routing); weights read {B_(r['weight_bytes'])}")
    lines.append(_working_net(inp, r, c["link_bandwidth"]))
    cb = r["critical_batch"]
    lines += [
        f"  t_step lower = max(t_mem, t_compute, t_network) = {T(r['t_step_lower'])} → {r['bound']}-bound",
        f"  t_step upper = t_mem + t_compute + t_network = {T(r['t_step_upper'])}",
        f"  Intensity = FLOPs / refined HBM bytes = {g(r['flops'])} / {g(r['hbm_bytes_refined'])} "
        f"= {g(r['intensity'])} FLOP/B (critical {g(c['peak_flops'] / c['hbm_bandwidth'])})",
        "  Critical batch (t_compute = max(t_mem, t_network)): "
        + ("never compute-bound" if cb is None else
           f"B = {g(cb)}" + (f" (B_dense = {g(r['critical_tokens'])} tokens)" if ph == "prefill" else "")),
        f"  Step throughput = B_dense / t_step = {format_rate(r['step_throughput_min'], 'tok/s')} "
        f"… {format_rate(r['step_throughput_max'], 'tok/s')}",
    ]
    return lines + _working_memory(s, inp, ph)


def _ctx(s: Mapping[str, Any], ph: str) -> float:
    """Keys each query sees on average: (p+1)/2 causal in prefill, p + (d−1)/2 in decode."""
    i = s["inputs"]
    return (i["prefill"] + 1) / 2 if ph == "prefill" else i["prefill"] + (i["decode"] - 1) / 2


def _working_net(inp: llm.LLMInputs, r: Mapping[str, Any], link_bw) -> str:
    cfg, n, sa = inp.model, inp.n, inp.dtypes["x"].bytes
    if n <= 1:
        return "  t_network = 0 (one chip)"
    tok, L, D = _g(r["tokens"]), cfg.layers, cfg.hidden_size
    if inp.t_net == "ring":
        return (f"  t_network (ring) = 2·L all-reduces × 2(n−1)/n·B_dense·D·S_a / NetBW = "
                f"2 · {L} · 2 · {n - 1}/{n} · {tok} · {D} · {sa:g} / {format_si(link_bw, 'B/s')} "
                f"= {_time(r['t_network'])}")
    return (f"  t_network (note, the note's upper bound) = 4(n−1)·B_dense·D·S_a·L / NetBW = "
            f"4 · {n - 1} · {tok} · {D} · {sa:g} · {L} / {format_si(link_bw, 'B/s')} "
            f"= {_time(r['t_network'])}")


def _working_memory(s: Mapping[str, Any], inp: llm.LLMInputs, ph: str) -> list[str]:
    cfg, n = inp.model, inp.n
    sa = inp.dtypes["x"].bytes
    r = s["phases"][ph]
    m = r["memory"]
    g, B_ = _g, _bytes
    act_tok = sa * (2 * cfg.hidden_size + 2 * cfg.top_k * cfg.ffn_size / n)
    return [
        f"  Memory per chip = weights {B_(m['weights'])} + KV B·(p+d)·{B_(s['kv_bytes_per_token_per_chip'])} "
        f"= {B_(m['kv_cache'])} + activations S_a·(B_dense·(2D + 2·top_k·F/n) + B·V/n) = "
        f"{sa:g}·({g(r['tokens'])}·{g(act_tok / sa)} + {format_number(s['inputs']['batch'])}·"
        f"{g(cfg.vocab_size / n)}) = {B_(m['activations'])} "
        f"= {B_(m['total'])} of {B_(m['capacity'])} → {'fits' if m['fits'] else 'DOES NOT FIT'}",
        f"  Largest batch that fits = floor((capacity − weights) / {B_(m['per_request'])} per request) "
        f"= {format_number(m['max_batch'])}",
    ]


def _working_serving(s: Mapping[str, Any]) -> list[str]:
    sv, T = s["serving"], _time

    def span_of(key: str, unit: str) -> str:
        return f"{format_rate(sv[key + '_min'], unit)} … {format_rate(sv[key + '_max'], unit)}"

    return [
        "── serving: one prefill step, then d decode steps",
        f"  Cycle = t_prefill + d·t_decode = {T(sv['cycle_time_lower'])} (lower bounds) … "
        f"{T(sv['cycle_time_upper'])} (upper bounds)",
        f"  Throughput_total = B·(p+d) / cycle = {span_of('throughput_total', 'tok/s')}",
        f"  Per-request = Throughput_total / (p+d) = {span_of('throughput_per_request', 'req/s')}",
        f"  Decode = d·Throughput_total / (p+d) = {span_of('throughput_decode', 'tok/s')}",
        f"  Time to first token ≈ prefill step = {T(sv['ttft_lower'])} … {T(sv['ttft_upper'])}; "
        f"per output token ≈ decode step = {T(sv['tpot_lower'])} … {T(sv['tpot_upper'])}",
        f"  Memory: {'fits' if s['memory']['fits'] else 'does NOT fit'}; largest batch that fits both "
        f"phases = {format_number(s['memory']['max_batch'])}",
    ]


def record_extras(entry, breakdown: bool = False) -> dict:
    """The LLM fields of one (chip, phase) JSON record (with ``breakdown``, its ``parts``)."""
    return llm.record_fields(summary(entry), entry.phase, breakdown)


#: How the parts of a step are named in tables.
PART_LABELS = {"embedding": "Embedding", "qkv_proj": "QKV proj", "attention": "Attention",
               "o_proj": "Out proj", "mlp": "MLP gate/up/down", "moe": "MoE + router",
               "allreduce": "TP all-reduce", "norms": "Norms, other", "lm_head": "LM head"}


def part_rows(parts) -> list[tuple[str, str]]:
    """The parts of a phase as table rows: count × (FLOPs, HBM, link bytes, T_lower) per
    occurrence, the bound and the share of the sum of the parts' T_lower."""
    step = sum(pt["count"] * pt["t_lower"] for pt in parts) or 1.0
    rows = [("Parts (×count)", "FLOPs · HBM · link · T_lower each → bound, share of Σ T_lower")]
    for pt in parts:
        rows.append((f"  {PART_LABELS.get(pt['name'], pt['name'])} ×{pt['count']}",
                     f"{format_si(pt['flops'], 'FLOP')} · {format_si(pt['hbm_bytes'], 'B')} · "
                     f"{format_si(pt['net_bytes'], 'B')} · {format_time(pt['t_lower'])} → {pt['bound']}, "
                     f"{pt['count'] * pt['t_lower'] / step:.1%}"))
    return rows


def span(lo, hi, unit: str) -> str:
    """``lo … hi`` of a rate (tokens or requests per second)."""
    return f"{format_rate(lo, unit)} … {format_rate(hi, unit)}"


def table_rows(entry, rec: dict) -> list[tuple[str, str]]:
    """LLM rows under the roofline rows of one (chip, phase) table."""
    r = rec
    mem = (f"{format_si(r['memory_bytes_per_chip'], 'B')} of {format_capacity(r['hbm_capacity'])} — "
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
        (f"t_network ({r['t_net_model']}{', the note’s upper bound' if r['t_net_model'] == 'note' else ''})",
         format_time(r["t_network"])),
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
    if "parts" in r:
        rows += part_rows(r["parts"])
    return rows


def working_lines(entry) -> list[str]:
    """The LLM working for one (chip, phase): the shared lines, this phase's step and the serving cycle."""
    other = [f"── {ph} step" for ph in llm.PHASES if ph != entry.phase]
    out, skip = [], False
    for line in working(summary(entry), llm.llm_inputs(entry.op)):
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
