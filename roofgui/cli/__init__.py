"""The command line: ``roofgui chips``, ``roofgui analyze``, ``roofgui export``.

With no sub-command, ``roofgui`` opens the window.  Bad input exits with
status 2 and one line naming the problem; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Callable, Sequence

from roofgui.app.display import opens_window
from roofgui.model.errors import ModelError

from roofgui.cli import llm as cli_llm, measured, pareto as cli_pareto, tiles, validate
from roofgui.cli.common import (EXIT_USAGE, OUTPUT_ERRNOS, CliError, Output, OutputError,  # noqa: F401
                                Parser, check_empty_flags, internal_error, one_line,
                                output_failed, parse_kv, silence)
from roofgui.presentation.safe_text import SafeWriter, escape_json_controls


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="roofgui", description="Roofline Explorer: where does the time go?")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", parser_class=Parser)

    sub.add_parser("chips", help="list chip ids with headline figures").add_argument(
        "--json", action="store_true", help="print JSON")
    sp = sub.add_parser("show-chip", help="print one chip's figures with sources")
    sp.add_argument("chip")

    a = sub.add_parser("analyze", help="analyse an op on one or more chips")
    a.add_argument("scenario", nargs="?", help="a scenario JSON file (instead of --op/--dims)")
    a.add_argument("--chip", action="append", default=[], help="chip id or path to a chip TOML (repeatable)")
    a.add_argument("--op", default=None, help="matmul, batched-matmul, dot, elementwise, custom, llm")
    a.add_argument("--dims", default="", help="e.g. B=256,D=8192,F=8192 (accepts 4k, 8Ki, 1e6, 2**20)")
    a.add_argument("--dtype", help="sets every operand and the compute dtype")
    a.add_argument("--x-dtype", help="activations dtype")
    a.add_argument("--w-dtype", help="weights dtype")
    a.add_argument("--out-dtype", help="output dtype")
    a.add_argument("--compute-dtype", help="compute dtype (selects the chip's peak)")
    a.add_argument("--shard", help="AXIS=N, e.g. D=2")
    a.add_argument("--link", help="link the shards talk over: ici, nvlink, xgmi, pcie, dcn, ethernet, ...")
    a.add_argument("--what-if", default="", help="e.g. peak=2,hbm=0.5,link=4")
    a.add_argument("--derate", action="store_true", help="use each chip's achievable fraction of peak")
    a.add_argument("--json", action="store_true", help="print JSON")
    a.add_argument("--working", action="store_true", help="print the derivation of every figure")
    a.add_argument("--tile", help="matmul tile sizes, e.g. bm=128,bn=128[,bk=64]: adds each memory level")
    cli_llm.add_args(a)
    cli_pareto.add_parser(sub)

    e = sub.add_parser("export", help="write a plot or table without a window")
    e.add_argument("scenario", help="scenario JSON file")
    e.add_argument("-o", "--output", required=True, help="OUT.png, .svg, .pdf or .csv")
    e.add_argument("--plot", choices=("roofline", "sweep"), default="roofline",
                   help="which plot (for .csv: the results table or the sweep data)")
    e.add_argument("--width", type=int, default=None, help="pixels (default 1920; 16:9 with --height)")
    e.add_argument("--height", type=int, default=None, help="pixels (default 1080; 16:9 with --width)")
    e.add_argument("--style", choices=("slide", "screen", "screen-dark"), default="slide",
                   help="slide: large type, thick lines (default); screen: as in the window")
    e.add_argument("--title", default=None, help="a title above the plot")
    e.add_argument("--caption", action="store_true", help="stamp a caption with the op, chips and sources")
    e.add_argument("--transparent", action="store_true", help="transparent background (PNG, SVG, PDF)")
    measured.add_parser(sub)
    validate.add_parser(sub)
    return p


def cmd_chips(args, out) -> int:
    from roofgui.model.catalog import Catalog
    from roofgui.model.units import format_capacity, format_si
    from roofgui.presentation.levels_text import chip_level_lines
    cat = Catalog.load()
    for err in cat.errors:
        print(f"warning: {err}", file=sys.stderr)
    if args.json:
        rows = []
        for c in cat:
            rows.append({"id": c.id, "name": c.name, "vendor": c.vendor,
                         "bf16_peak": c.peak("bf16").value, "hbm_bandwidth": c.hbm_bandwidth.value,
                         "hbm_capacity": c.hbm_capacity.value,
                         "critical_intensity": c.critical_intensity,
                         "links": {k: l.bandwidth.value for k, l in c.links.items()},
                         "builtin": c.builtin})
        print(json.dumps(rows, indent=2), file=out)
        return 0
    print(f"{'id':<12} {'name':<28} {'bf16 peak':>12} {'HBM BW':>11} {'HBM':>9} {'ridge':>6}  links", file=out)
    for c in cat:
        links = ", ".join(f"{k} {format_si(l.bandwidth.value, 'B/s')}" for k, l in c.links.items())
        print(f"{c.id:<12} {c.name[:28]:<28} {format_si(c.peak('bf16').value, 'FLOP/s'):>12} "
              f"{format_si(c.hbm_bandwidth.value, 'B/s'):>11} {format_capacity(c.hbm_capacity.value):>9} "
              f"{c.critical_intensity:>6.0f}  {links}", file=out)
    return 0


def cmd_show_chip(args, out) -> int:
    from roofgui.model.catalog import Catalog
    from roofgui.model.units import format_capacity, format_si
    from roofgui.presentation.levels_text import chip_level_lines
    cat = Catalog.load()
    c = cat.get(args.chip)
    print(f"{c.name} ({c.id}) — {c.vendor} {c.kind}{' — ' + c.summary if c.summary else ''}", file=out)

    def line(label, f, unit):
        extra = " [halved from a with-sparsity headline]" if f.sparsity_halved else ""
        note = f" — {f.note}" if f.note else ""
        alts = f" (other sources: {f.alternatives})" if f.alternatives else ""
        shown = format_capacity(f.value) if unit == "B" else format_si(f.value, unit)
        print(f"  {label:<22} {shown:>14}  [{f.source}]{extra}{note}{alts}", file=out)

    for k, f in c.matrix.items():
        line(f"matrix {k}", f, "FLOP/s")
    for k, f in c.vector.items():
        line(f"vector {k}", f, "FLOP/s")
    line("HBM capacity", c.hbm_capacity, "B")
    line("HBM bandwidth", c.hbm_bandwidth, "B/s")
    for k, l in c.links.items():
        line(f"link {k} (one-way)", l.bandwidth, "B/s")
    if c.achievable:
        print(f"  {'achievable fraction':<22} {c.achievable.value:>14.0%}  [{c.achievable.source}]", file=out)
    print("\n".join(chip_level_lines(c)), file=out)
    print("Sources:", file=out)
    for k, v in c.sources.items():
        print(f"  [{k}] {v}", file=out)
    return 0


def _analyze_scenario(args):
    """Build the scenario that ``analyze`` evaluates, from a file or the flags."""
    from roofgui.model.scenario import Scenario, load_scenario
    from roofgui.model.units import WHAT_IF_MAX, WHAT_IF_MIN, parse_quantity

    if args.scenario:
        sc = load_scenario(args.scenario)
        if args.chip:
            sc.chips = list(args.chip)
    else:
        if not args.op:
            raise CliError("analyze: give --op (or a scenario file)")
        if not args.chip:
            raise CliError("analyze: give at least one --chip (see 'roofgui chips')")
        sc = Scenario(ops=[_op_from_flags(args)], chips=list(args.chip))
    if args.what_if:
        for k, v in parse_kv(args.what_if, "--what-if").items():
            if k not in ("peak", "hbm", "link"):
                raise CliError(f"--what-if: unknown multiplier {k!r} (use peak, hbm, link)")
            setattr(sc.what_if, k, parse_quantity(v, f"--what-if {k}", max_value=WHAT_IF_MAX,
                                                  min_value=WHAT_IF_MIN))
    if args.derate:
        sc.derate = True
    tiles.apply_tile(sc, args.tile)
    return sc


def _op_from_flags(args):
    """The op of ``--op``, ``--dims``, the dtype flags and ``--shard``/``--link``."""
    from roofgui.model.ops import get_kind
    from roofgui.model.scenario import OpSpec

    kind = get_kind(args.op)
    builder = OP_BUILDERS.get(kind.name)
    if builder is not None:
        return builder(args, kind)
    return OpSpec(kind.name, kind.name, _dims(args, kind), _dtypes(args), _shard(args, kind))


def _dims(args, kind) -> dict[str, float]:
    from roofgui.model.units import MIN_VALUE, parse_quantity

    dims = {}
    for name, text in parse_kv(args.dims, "--dims").items():
        if name not in kind.dim_names():
            raise CliError(f"--dims: {kind.name} has no dimension {name!r} "
                           f"(it has {', '.join(kind.dim_names())})")
        spec = next(d for d in kind.dims if d.name == name)
        dims[name] = parse_quantity(text, f"--dims {name}", integer=False,
                                    min_value=0.0 if spec.integer else MIN_VALUE)
        if spec.integer and dims[name] < 1:
            raise CliError(f"--dims {name}: must be at least 1 (got {dims[name]:g})")
    return dims


def _dtypes(args) -> dict[str, str]:
    from roofgui.model.dtypes import get_dtype
    from roofgui.model.ops import DTYPE_ROLES

    dtypes = {}
    if args.dtype:
        d = get_dtype(args.dtype, "--dtype").name
        dtypes = {r: d for r in DTYPE_ROLES}
    for role, val in (("x", args.x_dtype), ("w", args.w_dtype), ("out", args.out_dtype),
                      ("compute", args.compute_dtype)):
        if val:
            dtypes[role] = get_dtype(val, f"--{role}-dtype").name
    return dtypes


def _shard(args, kind):
    """The ``ShardSpec`` of ``--shard AXIS=N --link NAME`` (None without ``--shard``)."""
    from roofgui.model.chips import SHARD_LINKS
    from roofgui.model.scenario import ShardSpec
    from roofgui.model.units import parse_quantity

    if not args.shard:
        if args.link:
            raise CliError("--link needs --shard AXIS=N")
        return None
    kv = parse_kv(args.shard, "--shard")
    if len(kv) != 1:
        raise CliError("--shard: give one AXIS=N, e.g. D=2")
    (axis, n_text), = kv.items()
    if axis not in kind.shard_axes:
        raise CliError(f"--shard: {kind.name} cannot be sharded along {axis!r} "
                       f"(axes: {', '.join(kind.shard_axes) or 'none'})")
    n = parse_quantity(n_text, "--shard N", integer=True, max_value=1e6)
    if not args.link:
        raise CliError("--shard needs --link (e.g. --link ici or --link nvlink)")
    if args.link not in SHARD_LINKS:
        raise CliError(f"--link: unknown link {args.link!r} (known: {', '.join(SHARD_LINKS)})")
    return ShardSpec(axis, int(n), args.link)


#: Op kinds whose flags differ from --dims.
OP_BUILDERS: dict[str, Callable] = {"llm": cli_llm.build_op}


def cmd_analyze(args, out) -> int:
    from roofgui.model.catalog import Catalog
    from roofgui.model.evaluate import evaluate_scenario
    from roofgui.presentation.report import record

    sc = _analyze_scenario(args)
    cat = Catalog.load()
    # Unknown chips and chip-level problems are usage errors on the command line.
    for ref in sc.chips:
        cat.get(ref)
    ev = evaluate_scenario(sc, cat)
    if ev.errors and not ev.entries:
        raise CliError(ev.errors[0])
    for err in ev.errors:
        print(f"warning: {err}", file=sys.stderr)
    records = []
    for e in ev.entries:
        rec = record(e.analysis, e.op.name, e.phase)
        extra = RECORD_EXTRAS.get(e.op.kind)
        if extra:
            rec.update(extra(e, breakdown=args.breakdown))
        rec.update(tiles.record_levels(e))
        records.append(rec)
    if args.json:
        print(escape_json_controls(json.dumps(records, indent=2, ensure_ascii=False)), file=out)
        return 0
    for e, rec in zip(ev.entries, records):
        _print_entry(e, rec, args.working, out)
    from roofgui.presentation.summary import summarise, summary_lines
    summary = summarise(ev.entries, ev.chips)
    if summary.has_block:  # (several ops: the whole block per chip)
        print("Summary: bound · T_lower · utilisation per op, and the whole block", file=out)
        print("\n".join(summary_lines(summary)), file=out)
    return 0


def _print_entry(e, rec: dict, with_working: bool, out) -> None:
    """One evaluated op on one chip as a titled table (and its working)."""
    from roofgui.presentation.report import working

    title = f"{e.label} on {e.analysis.chip.label()}"
    print(title, file=out)
    print("─" * len(title), file=out)
    rows = _table_rows(rec)
    more = TABLE_EXTRAS.get(e.op.kind)
    if more:
        rows += more(e, rec)
    rows += tiles.table_levels(e)
    for label, text in rows:
        print(f"  {label:<22} {text}", file=out)
    for n in rec["notes"]:
        print(f"  note: {n}", file=out)
    if with_working:
        print("  Working:", file=out)
        extra = WORKING_EXTRAS.get(e.op.kind)
        for line in [*working(e.analysis), *(extra(e) if extra else ()), *tiles.working_levels(e)]:
            print(f"    {line}", file=out)
    print(file=out)


def _table_rows(rec: dict) -> list[tuple[str, str]]:
    """(label, text) rows of one record, as ``analyze`` prints them."""
    from roofgui.model.units import format_number, format_si, format_time

    rows = [("FLOPs", format_si(rec["flops"], "FLOP")), ("HBM bytes", format_si(rec["hbm_bytes"], "B"))]
    if rec["net_bytes"]:
        rows.append((f"Link bytes ({rec['link']})", format_si(rec["net_bytes"], "B")))
    rows += [
        ("Intensity", f"{format_number(rec['intensity'])} FLOP/B"),
        ("Peak", f"{format_si(rec['peak_flops'], 'FLOP/s')} ({rec['peak_dtype']})"),
        ("HBM bandwidth", format_si(rec["hbm_bandwidth"], "B/s")),
        ("Critical intensity", f"{format_number(rec['critical_intensity'])} FLOP/B"),
        ("T_math", format_time(rec["t_math"])),
        ("T_hbm", format_time(rec["t_hbm"])),
    ]
    if rec["link_bandwidth"]:
        rows.append(("T_net", format_time(rec["t_net"])))
    rows += [
        ("T_lower (max)", format_time(rec["t_lower"])),
        ("T_upper (sum)", format_time(rec["t_upper"])),
        ("Attainable", format_si(rec["attainable_flops"], "FLOP/s")),
        ("Utilisation", f"{rec['utilisation']:.1%}"),
        ("Bound", str(rec["bound"])),
    ]
    rows += [(f"Critical {k}", "none" if v is None else format_number(v))
             for k, v in rec["critical"].items()]
    return rows


#: Per-op-kind extra JSON fields (the LLM step adds throughput and memory figures).
RECORD_EXTRAS: dict[str, Callable] = {"llm": cli_llm.record_extras}
#: Per-op-kind extra table rows ``(entry, record) -> [(label, text)]`` and ``--working`` lines.
TABLE_EXTRAS: dict[str, Callable] = {"llm": cli_llm.table_rows}
WORKING_EXTRAS: dict[str, Callable] = {"llm": cli_llm.working_lines}


def cmd_export(args, out) -> int:
    from roofgui.cli.export import run_export

    try:
        return run_export(args, out)
    except ImportError as e:  # pragma: no cover - only when Qt is missing
        raise CliError(f"export needs Qt (PySide6): {e}") from None


COMMANDS = {"chips": cmd_chips, "show-chip": cmd_show_chip, "analyze": cmd_analyze, "export": cmd_export,
            "measured": measured.run, "pareto": cli_pareto.cmd_pareto,
            "validate": validate.run}


def main(argv: Sequence[str] | None = None, out=None) -> int:
    """Entry point.  Returns the exit status."""
    out = out or sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    if opens_window(argv):
        from roofgui.app import main as gui_main
        return gui_main(argv[1:] if argv and argv[0] in ("gui", "open") else argv)
    err, sys.stderr = sys.stderr, SafeWriter(sys.stderr)  # no raw control characters
    try:
        return _run(argv, Output(out))
    finally:
        sys.stderr = err


def _run(argv: list[str], out: Output) -> int:
    try:
        args = build_parser().parse_args(argv)
        check_empty_flags(args)
        if args.version:
            from roofgui import __version__
            print(f"roofgui {__version__}", file=out)
            return 0
        if not args.command:
            raise CliError("give a command: chips, show-chip, analyze, pareto, export, measured or validate")
        status = COMMANDS[args.command](args, out)
        out.flush()
        return status
    except (CliError, ModelError) as e:
        one_line(f"roofgui: error: {e}")
        return EXIT_USAGE
    except OutputError as e:
        return output_failed(out.stream, e.strerror)
    except BrokenPipeError:
        silence(out.stream)
        return 0
    except KeyboardInterrupt:
        return 130
    except SystemExit:  # --help, --list-models: what they printed must reach the output too
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            silence(sys.stdout)
            return 0
        except OSError as e:
            return output_failed(sys.stdout, e.strerror or str(e))
        raise
    except OSError as e:  # a file named on the command line (a name too long, ...)
        if e.filename is None and e.errno in OUTPUT_ERRNOS:  # printing straight to stdout
            return output_failed(sys.stdout, e.strerror)
        if e.filename is None or os.environ.get("ROOFGUI_DEBUG"):
            return internal_error(e)
        one_line(f"roofgui: error: {e.filename}: {e.strerror or e}")
        return EXIT_USAGE
    except Exception as e:  # never a traceback; ROOFGUI_DEBUG=1 shows it
        return internal_error(e)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
