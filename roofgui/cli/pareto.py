"""``roofgui pareto``: the latency–throughput frontier of an LLM on a chip.

Over tensor-parallel degrees (1, 2, 4, … up to ``--chips-count``) and batch sizes (powers
of two up to the memory limit), tokens/s per chip against tokens/s per user, with the
``--ttft`` and ``--tpot`` limits; the model is :mod:`roofgui.model.pareto`.
"""

from __future__ import annotations

import argparse
import json

from roofgui.cli import llm as cli_llm
from roofgui.cli.common import CliError
from roofgui.model import llm
from roofgui.model.pareto import THROUGHPUTS, pareto
from roofgui.model.units import format_number, format_rate, format_time, parse_quantity

#: What the per-chip column counts, by ``--throughput``.
THROUGHPUT_LABELS = {"output": "output tokens/s per chip (generated tokens only)",
                     "total": "total tokens/s per chip (prompt + generated tokens)"}


def add_parser(sub) -> None:
    """Add the ``pareto`` sub-command to ``sub`` (the sub-parsers of ``roofgui``)."""
    a = sub.add_parser("pareto", help="tokens/s per chip against tokens/s per user, over batch and "
                                      "tensor parallelism (LLM serving frontier)")
    a.add_argument("--model", help=f"model preset (default {llm.DEFAULT_MODEL}) or 'custom'")
    a.add_argument("--arch", default="", help="custom model fields (as for analyze --op llm)")
    a.add_argument("--chip", required=True, help="chip id or path to a chip TOML")
    a.add_argument("--chips-count", default="1", help="most chips in tensor parallel N (default 1)")
    a.add_argument("--link", help="link between the chips (nvlink, ici, xgmi, scale-up, …)")
    a.add_argument("--prefill", help="average prefill (prompt) tokens p (default 1024)")
    a.add_argument("--decode", help="average decode (generated) tokens d (default 256)")
    a.add_argument("--ttft", help="time-to-first-token limit, seconds (e.g. 2 or 500e-3)")
    a.add_argument("--tpot", help="time-per-output-token limit, seconds (e.g. 50e-3)")
    a.add_argument("--throughput", choices=THROUGHPUTS, default="output",
                   help="; ".join(f"{k}: {v}" for k, v in THROUGHPUT_LABELS.items()) + " (default output)")
    for flag, what in (("--dtype", "every role"), ("--w-dtype", "weights"), ("--act-dtype", "activations"),
                       ("--kv-dtype", "KV cache"), ("--compute-dtype", "compute (the chip's peak)")):
        a.add_argument(flag, help=f"dtype of {what}")
    a.add_argument("--t-mem", choices=llm.T_MEM_MODELS, help="t_mem model (default refined)")
    a.add_argument("--t-net", choices=llm.T_NET_MODELS,
                   help="t_network: " + "; ".join(f"{k} = {v}" for k, v in llm.T_NET_LABELS.items()))
    a.add_argument("--json", action="store_true", help="print JSON")


def _limit(text: str | None, flag: str) -> float | None:
    if text is None:
        return None
    v = parse_quantity(text, flag, max_value=1e9)
    if not v > 0:
        raise CliError(f"{flag}: must be a positive time in seconds (got {v:g})")
    return v


def _op(args: argparse.Namespace):
    """The LLM op the frontier varies (batch 1, one chip: pareto sets both)."""
    ns = argparse.Namespace(**vars(args))
    for k in ("dims", "shard", "out_dtype", "x_dtype", "link", "chips_count"):
        setattr(ns, k, None if k != "dims" else "")
    ns.batch = None
    return cli_llm.build_op(ns, None)


def cmd_pareto(args: argparse.Namespace, out) -> int:
    from roofgui.model.catalog import Catalog

    n = int(parse_quantity(args.chips_count, "--chips-count", integer=True, max_value=cli_llm.MAX_CHIPS))
    if n > 1 and not args.link:
        raise CliError(f"--chips-count {n} needs --link (e.g. --link nvlink or --link ici)")
    chip = Catalog.load().get(args.chip)
    res = pareto(_op(args), chip, n, args.link, ttft=_limit(args.ttft, "--ttft"),
                 tpot=_limit(args.tpot, "--tpot"), throughput=args.throughput)
    if not res["points"]:
        raise CliError(res["errors"][0] if res["errors"] else "no configuration to show")
    res["throughput_label"] = THROUGHPUT_LABELS[res["throughput"]]
    res["per_user_label"] = "output tokens/s per user (1 / TPOT)"
    if args.json:
        print(json.dumps(res, indent=2, ensure_ascii=False), file=out)
        return 0
    _print_table(res, chip, out)
    return 0


def _print_table(res: dict, chip, out) -> None:
    on = {(q["chips"], q["batch"]) for q in res["frontier"]}
    lim = ", ".join(f"{k.upper()} ≤ {format_time(res[k + '_limit'])}" for k in ("ttft", "tpot")
                    if res[k + "_limit"] is not None) or "no latency limits"
    print(f"{chip.label()}: {res['throughput_label']} against {res['per_user_label']}; {lim}", file=out)
    print(f"  {'chips':>5} {'batch':>7} {'tok/s/chip':>12} {'tok/s/user':>11} {'TTFT':>9} {'TPOT':>9}  "
          f"{'fits':<4} {'meets':<5} frontier", file=out)
    for q in res["points"]:
        print(f"  {q['chips']:>5} {q['batch']:>7} {format_number(q['tokens_per_s_per_chip']):>12} "
              f"{format_number(q['tokens_per_s_per_user'] or 0):>11} {format_time(q['ttft']):>9} "
              f"{format_time(q['tpot']):>9}  {'yes' if q['fits'] else 'no':<4} "
              f"{'yes' if q['meets_slo'] else 'no':<5} {'*' if (q['chips'], q['batch']) in on else ''}",
              file=out)
    for e in res["errors"]:
        print(f"  note: {e}", file=out)
    best = max(res["frontier"], key=lambda q: q["tokens_per_s_per_chip"], default=None)
    if best is None:
        print("  No configuration fits and meets the limits.", file=out)
    else:
        print(f"  Best per chip within the limits: {best['chips']} chip(s), batch {best['batch']}: "
              f"{format_rate(best['tokens_per_s_per_chip'], 'tok/s')} per chip, "
              f"{format_rate(best['tokens_per_s_per_user'], 'tok/s')} per user", file=out)
