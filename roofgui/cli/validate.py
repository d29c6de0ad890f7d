"""``roofgui validate [--json] [--data FILE...]``: the analytic bounds held against
published measurements (``resources/measured/``, one cited row each).

Exit status: 0 when every measurement is at or above its bound; 1 when one beats it
(a time below ``T_lower``, a throughput above the analytic maximum: a wrong chip figure
or byte count), each such row named on stderr; 2 on bad input (an unreadable or malformed
data file, an unknown chip or model), one line naming the file, line and column.
"""

from __future__ import annotations

import json
import sys

from roofgui.cli.common import CliError

EXIT_INCONSISTENT = 1


def add_parser(subparsers) -> None:
    """Add the ``validate`` sub-command to ``subparsers``."""
    p = subparsers.add_parser("validate", help="hold the analytic bounds against published "
                              "measurements; calibrated MAPE")
    p.add_argument("--json", action="store_true", help="print JSON: rows and a summary")
    p.add_argument("--data", action="append", metavar="FILE",
                   help="a suite CSV to use instead of the shipped suite (repeatable)")


def run(args, out) -> int:
    """Run ``roofgui validate``; the exit status (bad input raises, as in roofgui.cli.main)."""
    from roofgui.model.validate import validate
    from roofgui.model.validation_suite import load_suite
    from roofgui.presentation.validate_text import report_lines

    rows = load_suite(args.data)
    if not rows:
        raise CliError("no measurements to validate (the suite is empty)")
    report = validate(rows)
    if args.json:
        print(json.dumps(report.to_json(), indent=2), file=out)
    else:
        for line in report_lines(report):
            print(line, file=out)
    for r in report.inconsistent:
        print(f"roofgui: validate: {r.row.id} ({r.row.where}) is faster than its bound "
              f"(ratio {r.ratio:.3g} < 1): a wrong chip figure or byte count", file=sys.stderr)
    return 0 if report.consistent else EXIT_INCONSISTENT
