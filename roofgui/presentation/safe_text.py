"""Text that is safe to print to a terminal, whatever a user put in it.

An op named ``"\\x1b]0;pwned\\x07\\x1b[2J"`` would retitle and clear the terminal if printed
raw.  :func:`escape_controls` turns every C0 and C1 control character (and DEL) except
newline and tab into a visible escape such as ``\\x1b``; :func:`escape_json_controls`
does the same for JSON text with ``\\u009b`` escapes, so JSON stays JSON.
"""

from __future__ import annotations

import re

#: C0 controls but newline and tab, DEL, and the C1 controls.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: What ``json.dumps(..., ensure_ascii=False)`` leaves raw: DEL and the C1 controls.
_JSON_RAW = re.compile("[\x7f-\x9f]")


def escape_controls(text: str) -> str:
    """``text`` with each control character but ``\\n`` and ``\\t`` shown as ``\\xNN``."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def escape_json_controls(text: str) -> str:
    """JSON ``text`` with DEL and C1 controls written as ``\\u00NN`` (still valid JSON: they
    can only occur inside strings, and the C0 controls are escaped by ``json.dumps``)."""
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
