"""Text that is safe to print to a terminal, whatever a user put in it.

An op named ``"\\x1b]0;pwned\\x07\\x1b[2J"`` would retitle and clear the terminal if printed
raw.  :func:`escape_controls` turns every C0 and C1 control character (and DEL) except
newline and tab into a visible escape such as ``\\x1b``; :func:`escape_json_controls`
does the same for JSON text with ``\\u009b`` escapes, so JSON stays JSON.
"""

from __future__ import annotations

import re

#: C0 controls but newline and tab, DEL, the C1 controls, and lone surrogates (which no
#: terminal encoding can hold: printing one raised UnicodeEncodeError).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
#: What ``json.dumps(..., ensure_ascii=False)`` leaves raw: DEL, C1 controls, surrogates.
_JSON_RAW = re.compile("[\x7f-\x9f\ud800-\udfff]")


def _visible(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with each control character but ``\\n`` and ``\\t`` shown as ``\\xNN`` (and
    each lone surrogate as ``\\uDNNN``)."""
    return _CONTROLS.sub(_visible, text)


def escape_json_controls(text: str) -> str:
    """JSON ``text`` with DEL, C1 controls and lone surrogates written as ``\\uNNNN`` (still
    valid JSON: they can only occur inside strings, and ``json.dumps`` escapes the C0 ones)."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class SafeWriter:
    """A text stream that escapes control characters on their way to ``stream``."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(escape_controls(text))

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)
