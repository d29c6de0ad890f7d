"""``roofgui measured FILE... --chip ID [--json]``: measured kernels against a chip's roofline.

Each file is an Nsight Compute ``--csv`` export, a rocprof-compute ``pmc_perf.csv``, an
XProf roofline CSV, a PyTorch profiler trace JSON or a ``name,seconds,flops,bytes`` CSV
(see :mod:`roofgui.model.measured`).  Every file is read before anything is printed: a bad
one (unreadable, unknown format, a non-number at line 7 ...) or an unknown chip prints one
line naming the file, line and column, and the status is 2.
"""

from __future__ import annotations

import json



def add_parser(subparsers) -> None:
    """Add the ``measured`` sub-command to ``subparsers``."""
    p = subparsers.add_parser("measured", help="place measured kernels (ncu, rocprof-compute, "
                              "XProf, PyTorch profiler, plain CSV) on a chip's roofline")
    p.add_argument("files", nargs="+", metavar="FILE", help="measurement files")
    p.add_argument("--chip", required=True, help="chip id or path to a chip TOML")
    p.add_argument("--json", action="store_true", help="print JSON: one record per kernel")


def run(args, out) -> int:
    """Run ``roofgui measured`` (bad input raises CliError or ModelError: roofgui.cli.main
    prints it as one line and exits 2)."""
    from roofgui.model.catalog import Catalog
    from roofgui.model.measured import parse_measurements
    from roofgui.model.measured.roof import place
    from roofgui.presentation.measured_text import summary

    chip = Catalog.load().get(args.chip)
    sets = [parse_measurements(f) for f in args.files]  # all read before any is shown
    if args.json:
        rows = [dict(place(k, chip).record(), file=s.source, chip=chip.id)
                for s in sets for k in s.kernels]
        print(json.dumps(rows, indent=2), file=out)
        return 0
    for s in sets:
        what = f"{len(s.kernels)} kernel{'s' if len(s.kernels) != 1 else ''}"
        if not s.kernels and s.ceilings:
            what = "measured ceilings only, no kernels"
        said = f" (the file says {s.chip})" if s.chip and s.chip != chip.id else ""
        print(f"{s.source} ({s.format}): {what}, on {chip.name}{said}", file=out)
        for k in s.kernels:
            print(f"  {summary(place(k, chip))}", file=out)
    return 0
