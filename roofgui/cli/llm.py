"""Command-line options of the LLM step (``roofgui analyze --op llm``).

What :mod:`roofgui.cli` adds for the LLM step:

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

from roofgui.cli.common import CliError, parse_kv
from roofgui.model import llm
from roofgui.model.chips import SHARD_LINKS as LINK_NAMES
from roofgui.model.dtypes import get_dtype
from roofgui.model.units import format_si, parse_quantity
from roofgui.presentation.llm_text import record_extras, table_rows, working_lines  # noqa: F401

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
                   help="t_network: " + "; ".join(f"{k} = {v}" for k, v in llm.T_NET_LABELS.items()))
    g.add_argument("--breakdown", action="store_true",
                   help="split each phase into its parts (projections, attention, MLP/experts, "
                        "all-reduces, embedding, LM head): JSON 'parts' and a table")
    g.add_argument("--list-models", action=_ListModels, help="list the model presets and exit")


def _is_custom(model: str) -> bool:
    """Whether ``model`` names the user-entered model (``custom``, any case or punctuation)."""
    return "".join(c for c in model.lower() if c.isalnum()) == llm.CUSTOM


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
    from roofgui.model.scenario import OpSpec, ShardSpec

    if args.dims:
        raise CliError("--dims: the LLM step takes --batch, --prefill and --decode")
    if args.shard:
        raise CliError("--shard: the LLM step takes --chips-count N and --link")
    if args.out_dtype:
        raise CliError("--out-dtype: the LLM step has no output dtype (use --act-dtype)")
    model = args.model if args.model is not None else llm.DEFAULT_MODEL
    params: dict[str, Any] = {"model": model}
    if args.arch:
        if not _is_custom(model):
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
    if not _is_custom(model):
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
