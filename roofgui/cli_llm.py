"""Command-line options of the LLM step (``roofgui analyze --op llm``).

Registers, on import (``cli._load_plugins`` imports it):

* ``analyze`` options ``--model``, ``--arch``, ``--batch``, ``--prefill``,
  ``--decode``, ``--chips-count``, ``--act-dtype``, ``--kv-dtype``,
  ``--t-mem``, ``--t-net`` and ``--list-models`` (the generic ``--chip``,
  ``--link``, ``--w-dtype``, ``--dtype``, ``--compute-dtype``, ``--what-if``,
  ``--derate``, ``--json`` and ``--working`` apply too);
* the builder that turns them into an ``OpSpec`` of kind ``llm``;
* the LLM fields of each JSON record, its table rows and ``--working`` lines.

Bad input raises :class:`~roofgui.cli.CliError` or
:class:`~roofgui.model.errors.ModelError`: one line, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import cli
from .cli import CliError, parse_kv
from .model import llm
from .model.chips import SHARD_LINKS as LINK_NAMES
from .model.dtypes import get_dtype
from .model.units import format_number, format_si, format_time, parse_quantity

#: Upper limits of the command-line numbers.
MAX_BATCH = 1e9
MAX_TOKENS = 1e9
MAX_CHIPS = 1e6


class _ListModels(argparse.Action):
    """``--list-models``: print the presets with their headline figures and exit (like ``--help``)."""

    def __init__(self, option_strings, dest, **kw):
        kw.pop("nargs", None)
        super().__init__(option_strings, dest, nargs=0, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        print_models(sys.stdout)
        parser.exit(0)


def print_models(out) -> None:
    """One line per preset: id, name, layers, D, heads/KV heads, F, V, parameters, KV bytes/token."""
    print(f"{'id':<16} {'name':<16} {'L':>4} {'D':>6} {'heads':>9} {'F':>6} {'V':>7} "
          f"{'params':>8} {'active':>8} {'KV/token':>9}", file=out)
    for mid, c in llm.presets().items():
        kv = 2 * c.layers * c.kv_heads * c.head_dim * 2
        print(f"{mid:<16} {c.name:<16} {c.layers:>4} {c.hidden_size:>6} {c.heads:>4}/{c.kv_heads:<4} "
              f"{c.ffn_size:>6} {c.vocab_size:>7} {c.params_total / 1e9:>7.2f}B {c.params_active / 1e9:>7.2f}B "
              f"{format_si(kv, 'B'):>9}", file=out)
    print(f"{llm.CUSTOM:<16} (enter --arch {','.join(f'{k}=…' for k in llm.ARCH_NAMES[:7])} …)", file=out)
    print("KV/token at bf16. Sources: specs/models/llm.toml (Hugging Face config.json and model papers).",
          file=out)


def add_args(a: argparse.ArgumentParser) -> None:
    g = a.add_argument_group("LLM step (--op llm; see docs/llm.md)")
    g.add_argument("--model", help=f"model preset (default {llm.DEFAULT_MODEL}; see --list-models) or 'custom'")
    g.add_argument("--arch", default="", help="custom model fields, e.g. hidden_size=4096,layers=32,heads=32,"
                   "kv_heads=8,ffn_size=14336,vocab_size=128256[,experts=8,top_k=2,params_total=…]")
    g.add_argument("--batch", help="concurrent requests B (default 64)")
    g.add_argument("--prefill", help="average prefill (prompt) tokens p (default 1024)")
    g.add_argument("--decode", help="average decode (generated) tokens d (default 256)")
    g.add_argument("--chips-count", help="chips in tensor parallel n (default 1; 2 or more needs --link)")
    g.add_argument("--act-dtype", help="activations dtype (default --dtype, else bf16)")
    g.add_argument("--kv-dtype", help="KV cache dtype (default: the activations dtype)")
    g.add_argument("--t-mem", choices=llm.T_MEM_MODELS,
                   help="t_mem shown: refined = weights + KV read (default); note = GPU_mem / MemBW")
    g.add_argument("--t-net", choices=llm.T_NET_MODELS,
                   help="t_network: note = 4(n−1)·B·D·S·L (default); ring = that / n")
    g.add_argument("--list-models", action=_ListModels, help="list the model presets and exit")


def _dtype(text: str | None, flag: str) -> str | None:
    return None if not text else get_dtype(text, flag).name


def _tokens(text: str | None, flag: str, default: float) -> float:
    if text is None:
        return default
    v = parse_quantity(text, flag, max_value=MAX_TOKENS)
    if v < 1:
        raise CliError(f"{flag}: must be at least 1 (got {v:g})")
    return v


def build_op(args: argparse.Namespace, kind) -> Any:
    """Turn the ``analyze`` flags into an ``OpSpec`` of kind ``llm``."""
    from .model.scenario import OpSpec, ShardSpec

    if args.dims:
        raise CliError("--dims: the LLM step takes --batch, --prefill and --decode")
    if args.shard:
        raise CliError("--shard: the LLM step takes --chips-count N and --link")
    if args.out_dtype:
        raise CliError("--out-dtype: the LLM step has no output dtype (use --act-dtype)")
    model = args.model if args.model is not None else llm.DEFAULT_MODEL
    params: dict[str, Any] = {"model": model}
    if args.arch:
        if llm._norm_id(model) != llm.CUSTOM:
            raise CliError("--arch needs --model custom (a preset's figures are fixed)")
        for k, v in parse_kv(args.arch, "--arch").items():
            if k not in llm.ARCH_NAMES:
                raise CliError(f"--arch: unknown field {k!r} (known: {', '.join(llm.ARCH_NAMES)})")
            params[k] = v
    if args.t_mem:
        params["t_mem"] = args.t_mem
    if args.t_net:
        params["t_net"] = args.t_net
    cfg = llm.resolve_model(params)  # unknown model, bad --arch: one line now
    for k in llm.ARCH_NAMES:
        if k in params:
            params[k] = getattr(cfg, k)
    if llm._norm_id(model) != llm.CUSTOM:
        params["model"] = cfg.id
    batch = parse_quantity(args.batch, "--batch", integer=True, max_value=MAX_BATCH) \
        if args.batch is not None else 64.0
    dims = {"B": batch, "p": _tokens(args.prefill, "--prefill", 1024.0),
            "d": _tokens(args.decode, "--decode", 256.0)}
    n = int(parse_quantity(args.chips_count, "--chips-count", integer=True, max_value=MAX_CHIPS)) \
        if args.chips_count is not None else 1
    shard = None
    if n > 1:
        if not args.link:
            raise CliError(f"--chips-count {n} needs --link (e.g. --link nvlink or --link ici)")
        if args.link not in LINK_NAMES:
            raise CliError(f"--link: unknown link {args.link!r} (known: {', '.join(LINK_NAMES)})")
        shard = ShardSpec(llm.SHARD_AXIS, n, args.link)
    elif args.link:
        raise CliError("--link needs --chips-count 2 or more")
    every = _dtype(args.dtype, "--dtype")
    act = _dtype(args.act_dtype, "--act-dtype")
    x = _dtype(args.x_dtype, "--x-dtype")
    if act and x and act != x:
        raise CliError("--act-dtype and --x-dtype disagree (they are the same thing)")
    act = act or x or every or "bf16"
    dtypes = {"w": _dtype(args.w_dtype, "--w-dtype") or every or "bf16",
              "x": act,
              "kv": _dtype(args.kv_dtype, "--kv-dtype") or every or act,
              "compute": _dtype(args.compute_dtype, "--compute-dtype") or every or act}
    return OpSpec(cfg.id if cfg.id != llm.CUSTOM else "custom-llm", llm.KIND, dims, dtypes, shard, params)


def _summary(entry) -> dict:
    return llm.llm_summary(entry.op, entry.analysis.chip, figures=entry.analysis.figures)


def record_extras(entry) -> dict:
    """The LLM fields of one (chip, phase) JSON record."""
    return llm.record_fields(_summary(entry), entry.phase)


def _span(lo, hi, unit: str) -> str:
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
        ("Throughput total", _span(r["throughput_total_min"], r["throughput_total_max"], "tok/s")),
        ("Per-request", _span(r["throughput_per_request_min"], r["throughput_per_request_max"], "req/s")),
        ("Decode throughput", _span(r["throughput_decode_min"], r["throughput_decode_max"], "tok/s")),
        ("Time to first token", f"{format_time(r['ttft_lower'])} … {format_time(r['ttft_upper'])}"),
        ("Time per out token", f"{format_time(r['tpot_lower'])} … {format_time(r['tpot_upper'])}"),
    ]
    return rows


def working_lines(entry) -> list[str]:
    """The LLM working for one (chip, phase): the shared lines, this phase's step and the serving cycle."""
    other = [f"── {ph} step" for ph in llm.PHASES if ph != entry.phase]
    out, skip = [], False
    for line in _summary(entry)["working"]:
        if line.startswith("──"):
            skip = any(line.startswith(o) for o in other)
        elif not line.startswith("  "):
            skip = False
        if not skip:
            out.append(line)
    return out


def register() -> None:
    """Install the hooks into :mod:`roofgui.cli` (idempotent)."""
    if add_args not in cli._ANALYZE_ARG_HOOKS:
        cli._ANALYZE_ARG_HOOKS.append(add_args)
    cli._OP_BUILDERS[llm.KIND] = build_op
    cli._RECORD_EXTRAS[llm.KIND] = record_extras
    if hasattr(cli, "_TABLE_EXTRAS"):
        cli._TABLE_EXTRAS[llm.KIND] = table_rows
    if hasattr(cli, "_WORKING_EXTRAS"):
        cli._WORKING_EXTRAS[llm.KIND] = working_lines


register()
