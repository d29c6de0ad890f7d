"""What every sub-command shares: the usage error, the argument parser, ``NAME=VALUE`` lists."""

from __future__ import annotations

import argparse
import errno
import os
import re
import sys

from roofgui.presentation.safe_text import SafeWriter

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


#: Options whose default is the empty string: given empty, they say nothing, as left out.
MAY_BE_EMPTY = ("dims", "what_if", "arch")
#: Positional arguments, named as the usage line names them.
POSITIONALS = ("scenario", "chip", "command")


def check_empty_flags(args: argparse.Namespace) -> None:
    """Refuse an option given as an empty string (``--dtype ""``) rather than ignore it."""
    for dest, value in vars(args).items():
        if isinstance(value, str) and not value.strip() and dest not in MAY_BE_EMPTY:
            name = dest if dest in POSITIONALS else "--" + dest.replace("_", "-")
            raise CliError(f"{name}: empty; give a value or leave it out")


class OutputError(Exception):
    """Writing the command's output failed (a full disk, a closed terminal ...)."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))
        self.strerror = error.strerror or str(error)


class Output(SafeWriter):
    """The command's output stream: control characters escaped, write errors as
    :class:`OutputError` (a broken pipe stays a ``BrokenPipeError``: the reader left)."""

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e) from None

    def flush(self) -> None:
        try:
            super().flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OutputError(e) from None


def silence(stream) -> None:
    """Point ``stream``'s file descriptor at the null device, so that the flush at exit
    neither fails again nor prints a traceback after a write error or a broken pipe."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


#: What a write to a full, failing or closed output says.
OUTPUT_ERRNOS = (errno.ENOSPC, errno.EIO, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC))


def output_failed(stream, why: str) -> int:
    """One line for an output that cannot be written; the exit flush is kept quiet."""
    silence(stream)
    one_line(f"roofgui: error: cannot write the output: {why}")
    return 1


def internal_error(e: Exception) -> int:
    if os.environ.get("ROOFGUI_DEBUG"):
        raise e
    one_line(f"roofgui: internal error: {type(e).__name__}: {e} (set ROOFGUI_DEBUG=1 for details)")
    return 1


def one_line(message: str) -> None:
    """Print a message to stderr as exactly one line, whatever it contains (if stderr itself
    cannot be written, there is nowhere to say so: the exit status still tells)."""
    try:
        print(" ".join(message.split()), file=sys.stderr, flush=True)
    except OSError:
        silence(sys.stderr)
