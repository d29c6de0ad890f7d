"""What every sub-command shares: the usage error, the argument parser, ``NAME=VALUE`` lists."""

from __future__ import annotations

import argparse
import re

EXIT_USAGE = 2


class CliError(Exception):
    """A usage problem: printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise CliError(message)


def parse_kv(text: str, field: str) -> dict[str, str]:
    """``B=256,D=8k`` → {"B": "256", "D": "8k"}.

    A comma only separates pairs when a ``NAME=`` follows it, so values may
    use thousands separators: ``B=1,024,D=8k``.
    """
    out: dict[str, str] = {}
    for part in re.split(r",(?=[^,=]*=)", text):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            raise CliError(f"{field}: {part!r} should look like NAME=VALUE")
        k, v = part.split("=", 1)
        k = k.strip()
        if not k:
            raise CliError(f"{field}: missing name before '=' in {part!r}")
        if k in out:
            raise CliError(f"{field}: {k} is given twice")
        out[k] = v.strip()
    return out
