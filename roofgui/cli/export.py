"""``roofgui export SCENARIO.json -o OUT.{png,svg,pdf,csv}``: the window's picture, without a window.

Every problem — a bad argument, a missing or malformed scenario, an unknown
chip, a path that cannot be written — is one line and exit status 2 (raised as
:class:`roofgui.cli.CliError` or :class:`ModelError`, which ``roofgui.cli.main``
prints).  The output file is written whole or not at all.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from roofgui.cli.common import CliError

DEFAULT_ASPECT = 16 / 9


def resolve_size(width: int | None, height: int | None) -> tuple[int, int]:
    """Both given: as is; one given: the other at 16:9; none: 1920 × 1080."""
    from roofgui.export.options import DEFAULT_SIZE

    if width is None and height is None:
        return DEFAULT_SIZE
    if width is None:
        width = max(1, round(height * DEFAULT_ASPECT))
    elif height is None:
        height = max(1, round(width / DEFAULT_ASPECT))
    return int(width), int(height)


def check_output(path: Path) -> None:
    """Refuse early (before any rendering) a path that cannot be written."""
    if path.name in ("", ".", ".."):
        raise CliError(f"-o {str(path)!r}: give a file name")
    if path.exists() and path.is_dir():
        raise CliError(f"cannot write {path}: it is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise CliError(f"cannot write {path}: directory {parent} does not exist")
    if not parent.is_dir():
        raise CliError(f"cannot write {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(f"cannot write {path}: directory {parent} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise CliError(f"cannot write {path}: the file is read-only")


def run_export(args, out) -> int:
    """The ``export`` sub-command.  Returns the exit status (0)."""
    from roofgui.export.options import ExportError, ExportOptions

    try:
        path, fmt, width, height = check_args(args)
    except OSError as e:  # a name too long, a folder we may not search ...
        raise CliError(f"cannot write {args.output}: {e.strerror or e}") from None
    scenario, catalog = load_for_export(args, fmt)
    try:
        opts = ExportOptions(args.plot, width, height, args.style, args.title, args.caption,
                             args.transparent).validated()
    except ExportError as e:
        raise CliError(str(e)) from None
    if fmt != "csv":
        from roofgui.export.qtapp import ensure_app, quiet_qt_messages

        ensure_app(offscreen=True)
        quiet_qt_messages()
    from roofgui.export.render import export_file

    try:
        export_file(path, scenario, catalog, opts.plot, opts.width, opts.height, opts.style,
                    opts.title, opts.caption, opts.transparent)
    except OSError as e:  # (a link to a device: "not a regular file"; a full disk ...)
        raise CliError(f"cannot write {path}: {e.strerror or str(e).split(': ', 1)[-1]}") from None
    what = f"{opts.width} × {opts.height} {fmt.upper()}" if fmt != "csv" else (
        "results table CSV" if opts.plot == "roofline" else "sweep CSV")
    print(f"wrote {path} ({what})", file=out)
    return 0


def check_args(args) -> tuple[Path, str, int, int]:
    """(output path, format, width, height), or a usage error, before anything is loaded."""
    from roofgui.export.options import MAX_SIDE, MIN_SIDE, ExportError, check_size, format_for

    path = Path(args.output)
    if path.is_dir():
        raise CliError(f"cannot write {path}: it is a directory (give a file name)")
    try:
        fmt = format_for(path)
    except ExportError as e:
        raise CliError(f"-o {e.args[0]}") from None
    picture_only = [name for name, given in (
        ("--width", args.width is not None), ("--height", args.height is not None),
        ("--title", args.title is not None), ("--caption", args.caption),
        ("--transparent", args.transparent)) if given]
    if fmt == "csv" and picture_only:
        raise CliError(f"{', '.join(picture_only)}: only for pictures (.png, .svg, .pdf), not .csv")
    for name, v in (("--width", args.width), ("--height", args.height)):
        if v is not None and not MIN_SIDE <= v <= MAX_SIDE:
            raise CliError(f"{name}: must be between {MIN_SIDE} and {MAX_SIDE} pixels (got {v})")
    width, height = resolve_size(args.width, args.height)
    if fmt != "csv":
        try:
            check_size(width, height)
        except ExportError as e:
            raise CliError(str(e)) from None
    if args.title is not None and not args.title.strip():
        raise CliError("--title: empty; leave it out for no title")
    if args.title is not None and len(args.title) > 300:
        raise CliError("--title: too long (at most 300 characters)")
    check_output(path)
    return path, fmt, width, height


def load_for_export(args, fmt: str = "png"):
    """(scenario, catalog) of ``args.scenario``; a scenario with nothing to draw, or a sweep
    too large to compute, is a usage error."""
    from roofgui.model.catalog import Catalog
    from roofgui.model.evaluate import evaluate_scenario
    from roofgui.model.scenario import load_scenario

    scenario = load_scenario(args.scenario)
    if not scenario.chips:
        raise CliError(f"{args.scenario}: the scenario has no chips to plot")
    catalog = Catalog.load()
    for ref in scenario.chips:
        catalog.get(ref)  # an unknown chip is a usage error (ModelError, exit 2)
    ev = evaluate_scenario(scenario, catalog)
    if ev.errors and not ev.entries and scenario.ops:
        raise CliError(ev.errors[0])
    for err in ev.errors:
        print(f"warning: {err}", file=sys.stderr)
    if args.plot == "sweep" and not check_sweep(scenario, len(ev.chips), fmt):
        raise CliError(f"{args.scenario}: no op has the swept dimension "
                       f"{scenario.sweep.dim!r}, so there is no sweep to draw")
    return scenario, catalog


def check_sweep(scenario, n_chips: int, fmt: str) -> int:
    """The values the sweep holds; a :class:`ModelError` saying how large it would be when
    it is more than memory allows (a CSV is streamed: its bound is the size of the file)."""
    from roofgui.export.csv import MAX_SWEEP_CSV_VALUES, SWEEP_CSV_BYTES_PER_VALUE
    from roofgui.model.evaluate import check_sweep_size

    streamed = fmt == "csv" and not _llm_view(scenario)
    if streamed:
        return check_sweep_size(scenario, n_chips, MAX_SWEEP_CSV_VALUES, SWEEP_CSV_BYTES_PER_VALUE)
    return check_sweep_size(scenario, n_chips)


def _llm_view(scenario) -> bool:
    """Whether the sweep shows an LLM step's throughput or latency (a table built whole)."""
    try:
        from roofgui.model.llm import SWEEP_VIEWS
    except ImportError:  # pragma: no cover
        return False
    return scenario.sweep.y in SWEEP_VIEWS
