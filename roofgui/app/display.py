"""Is there a display to open the window on?  Answered before Qt is imported.

On Linux/BSD a window needs an X11 or Wayland display, or a headless Qt
platform asked for (``QT_QPA_PLATFORM=offscreen``, ``-platform offscreen``).
Without one, :func:`display_problem` gives the message to print instead of
Qt's abort.  No Qt.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping, Sequence

#: Qt platform plugins that need no X11 or Wayland display.
HEADLESS_PLATFORMS = frozenset({"offscreen", "minimal", "minimalegl", "vnc", "linuxfb", "eglfs",
                                "vkkhrdisplay"})

HEADLESS_HINT = """\
  Without a window, use the command line, for example:
    roofgui chips
    roofgui analyze --chip h100-sxm --op matmul --dims B=256,D=8192,F=8192
    roofgui export scenario.json -o roofline.png
  or run the window headless: QT_QPA_PLATFORM=offscreen roofgui  (or: xvfb-run -a roofgui)"""

# Qt's own command-line options that take a value (so the value is not the file to open).
QT_OPTS_WITH_VALUE = frozenset({"-platform", "-platformpluginpath", "-platformtheme", "-plugin",
                                "-style", "-stylesheet", "-qwindowgeometry", "-qwindowtitle",
                                "-qwindowicon", "-display", "-geometry", "-session", "-title",
                                "-name", "-qmljsdebugger", "-font", "-fn", "-bg", "-fg",
                                "-background", "-foreground", "-btn", "-button", "-visual",
                                "-ncols", "-cmap", "-im", "-inputstyle"})


def opens_window(argv: Sequence[str]) -> bool:
    """Whether a ``roofgui`` command line opens the window: nothing, ``gui`` or ``open``, or
    what the window's usage allows, a scenario file, Qt's options (one dash: ``-platform
    offscreen``) and ``--smoke-test``, in any order (anything else is the command line's)."""
    if not argv or argv[0] in ("gui", "open"):
        return True
    first = argv[0]
    return first.endswith(".json") or first == "--smoke-test" or (
        first.startswith("-") and not first.startswith("--") and first != "-h")


def split_args(argv: Sequence[str]) -> tuple[str | None, str | None]:
    """(the file to open, the ``-platform`` asked for on the command line)."""
    path = platform_arg = None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("-"):
            name, eq, val = a.partition("=")
            if name in ("-platform", "--platform"):
                if eq:
                    platform_arg = val
                elif i + 1 < len(argv):
                    platform_arg = argv[i + 1]
                    i += 1
            elif name.lstrip("-") and ("-" + name.lstrip("-")) in QT_OPTS_WITH_VALUE and not eq:
                i += 1
        elif path is None:
            path = a
        i += 1
    return path, platform_arg


def requested_platforms(platform_arg: str | None, environ: Mapping[str, str]) -> list[str]:
    """The Qt platform plugins Qt will try, in order (Linux/BSD)."""
    spec = platform_arg or environ.get("QT_QPA_PLATFORM", "")
    names = [p.split(":", 1)[0].strip().lower() for p in spec.split(";")]
    names = [n for n in names if n]
    if names:
        return names
    if environ.get("WAYLAND_DISPLAY") or environ.get("XDG_SESSION_TYPE", "").lower() == "wayland":
        return ["wayland", "xcb"]
    return ["xcb"]


def platform_usable(name: str, environ: Mapping[str, str]) -> bool:
    """Whether the platform plugin ``name`` has what it needs (a display, for xcb/wayland)."""
    if name in HEADLESS_PLATFORMS:
        return True
    if name == "xcb":
        return bool(environ.get("DISPLAY"))
    if name.startswith("wayland"):
        if environ.get("WAYLAND_DISPLAY"):
            return True
        runtime = environ.get("XDG_RUNTIME_DIR")
        return bool(runtime) and (Path(runtime) / "wayland-0").exists()
    return True  # a platform we do not know about: let Qt decide


def chosen_platform(argv: Sequence[str], environ: Mapping[str, str] | None = None,
                    sys_platform: str | None = None) -> str | None:
    """The platform plugin Qt will end up using, or None if there is none (no display)."""
    environ = os.environ if environ is None else environ
    sys_platform = sys.platform if sys_platform is None else sys_platform
    if not sys_platform.startswith(("linux", "freebsd", "openbsd", "netbsd", "dragonfly", "sunos")):
        return "native"  # no display server to look for
    _, platform_arg = split_args(argv)
    for name in requested_platforms(platform_arg, environ):
        if platform_usable(name, environ):
            return name
    return None


def no_display_message(detail: str | None = None) -> str:
    first = detail or ("roofgui: no display to open the window on "
                       "(neither DISPLAY nor WAYLAND_DISPLAY is set).")
    return f"{first}\n{HEADLESS_HINT}"


def display_problem(argv: Sequence[str], environ: Mapping[str, str] | None = None,
                    sys_platform: str | None = None) -> str | None:
    """The no-display message, or None when a window can be opened."""
    environ = os.environ if environ is None else environ
    if chosen_platform(argv, environ, sys_platform) is not None:
        return None
    _, platform_arg = split_args(argv)
    asked = platform_arg or environ.get("QT_QPA_PLATFORM")
    if asked:
        detail = (f"roofgui: no display to open the window on (Qt platform {asked!r} needs one, "
                  "and neither DISPLAY nor WAYLAND_DISPLAY is set).")
        return no_display_message(detail)
    return no_display_message()
