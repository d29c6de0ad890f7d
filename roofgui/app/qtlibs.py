"""Missing system libraries: which Debian packages to install so that Qt can start.

:func:`import_qt_problem` imports Qt's GUI modules in a guarded way,
:func:`xcb_missing_libs` checks Qt's X11 platform plugin, and
:class:`StartupGuard` turns Qt's fatal start-up messages into our message and
a clean exit.  Qt is imported lazily, so this module loads without it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from roofgui.app.display import HEADLESS_HINT, no_display_message

EXIT_NO_DISPLAY = 3
EXIT_MISSING_LIBS = 4

#: What a Debian/Ubuntu machine needs for Qt's xcb and offscreen platforms (what
#: scripts/setup.sh installs); printed when the exact missing library is unknown.
DEBIAN_QT_PACKAGES = (
    "libegl1", "libgl1", "libglib2.0-0", "libfontconfig1", "libfreetype6", "libxkbcommon0",
    "libxkbcommon-x11-0", "libdbus-1-3", "libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1",
    "libxcb-shape0", "libxcb-xinerama0", "libxcb-randr0", "libxcb-render-util0", "libxcb-image0",
    "libxcb-xkb1", "libx11-xcb1",
)

#: Shared libraries whose Debian package does not follow the soname rule.
SONAME_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0", "libgobject-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0", "libgio-2.0.so.0": "libglib2.0-0",
    "libgmodule-2.0.so.0": "libglib2.0-0", "libz.so.1": "zlib1g",
    "libharfbuzz.so.0": "libharfbuzz0b", "libbrotlidec.so.1": "libbrotli1",
    "libbrotlicommon.so.1": "libbrotli1", "libstdc++.so.6": "libstdc++6",
    "libgcc_s.so.1": "libgcc-s1", "libxcb-util.so.1": "libxcb-util1",
    "libxcb-util.so.0": "libxcb-util0", "libpng16.so.16": "libpng16-16",
    "libGLdispatch.so.0": "libglvnd0", "libc.so.6": "libc6", "libm.so.6": "libc6",
    "libdl.so.2": "libc6", "libpthread.so.0": "libc6", "librt.so.1": "libc6",
}

REINSTALL_HINT = "pipx reinstall roofgui, or pip install --force-reinstall PySide6-Essentials"


def debian_package(soname: str) -> str | None:
    """The Debian/Ubuntu package that ships a shared library, by Debian's naming rule.

    ``libxcb-cursor.so.0`` → ``libxcb-cursor0``; ``libdbus-1.so.3`` → ``libdbus-1-3``;
    ``libEGL.so.1`` → ``libegl1``.  None for Qt's own libraries (``libQt6*``),
    which come with PySide6, not with the system.
    """
    soname = soname.strip()
    if soname in SONAME_EXCEPTIONS:
        return SONAME_EXCEPTIONS[soname]
    if soname.startswith(("libQt6", "libpyside6", "libshiboken6", "libicu")):
        return None
    m = re.fullmatch(r"lib(.+?)\.so\.(\d+)(?:\.[\d.]+)?", soname)
    if not m:
        return None
    stem, major = m.group(1).lower(), m.group(2)
    sep = "-" if stem[-1].isdigit() else ""
    return f"lib{stem}{sep}{major}"


def missing_libs_message(libs: Sequence[str], *, gui_only: bool) -> str:
    """The message for missing shared libraries (``gui_only``: the command line still works)."""
    libs = sorted(dict.fromkeys(libs))
    pkgs = sorted(dict.fromkeys(p for p in (debian_package(l) for l in libs) if p))
    qt_own = [l for l in libs if debian_package(l) is None]
    lines = [f"roofgui: the window cannot start: Qt needs shared libraries that are not "
             f"installed ({', '.join(libs)})."]
    if pkgs:
        lines.append("  On Debian/Ubuntu install them with:")
        lines.append(f"    sudo apt install {' '.join(pkgs)}")
    if qt_own:
        lines.append(f"  {', '.join(qt_own)} belong to PySide6 itself: reinstall roofgui "
                     f"({REINSTALL_HINT}).")
    if gui_only:
        lines.append("  The command line works without them: roofgui chips, roofgui analyze, "
                     "roofgui export.")
    else:
        lines.append("  Until then, roofgui chips, show-chip and analyze work; the window and "
                     "export need Qt.")
    return "\n".join(lines)


def generic_qt_failure_message(qt_said: str) -> str:
    said = " ".join(qt_said.split())
    return "\n".join([
        "roofgui: Qt could not open the window.",
        "  On Debian/Ubuntu, make sure the libraries Qt needs are installed:",
        f"    sudo apt install {' '.join(DEBIAN_QT_PACKAGES)}",
        HEADLESS_HINT.replace("  Without a window", "  Meanwhile, without a window", 1),
        f"  (Qt said: {said[:400]})",
    ])


SONAME_RE = re.compile(r"(lib[\w.+-]+?\.so(?:\.\d+)*)")


def sonames_in(text: str) -> list[str]:
    """Shared-library names mentioned in a loader error message."""
    return list(dict.fromkeys(SONAME_RE.findall(text)))


def ldd_missing(path: str | Path) -> list[str]:
    """Libraries ``ldd`` cannot resolve for ``path`` ([] if ldd is unavailable)."""
    ldd = shutil.which("ldd")
    if not ldd or not Path(path).exists():
        return []
    try:
        out = subprocess.run([ldd, str(path)], capture_output=True, text=True, timeout=20,
                             env={**os.environ, "LC_ALL": "C"}).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.split("=>", 1)[0].strip() for line in out.splitlines()
            if "=>" in line and "not found" in line.split("=>", 1)[1]]


def qt_plugin_path(kind: str, name: str) -> Path | None:
    """The file of a Qt plugin shipped with PySide6 (e.g. ``platforms``, ``libqxcb.so``)."""
    try:
        from PySide6 import QtCore

        base = QtCore.QLibraryInfo.path(QtCore.QLibraryInfo.LibraryPath.PluginsPath)
    except Exception:
        return None
    p = Path(base) / kind / name
    return p if p.exists() else None


def import_qt_problem() -> str | None:
    """Import Qt's GUI modules in a guarded way; the message to print if that fails."""
    try:
        from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401
    except ImportError as e:
        text = str(e)
        libs = sonames_in(text)
        if libs:
            return missing_libs_message(libs, gui_only=False)
        return ("roofgui: the window cannot start: PySide6 (Qt for Python) could not be imported "
                f"({text}).\n  Reinstall roofgui ({REINSTALL_HINT}). roofgui chips, show-chip "
                "and analyze work without it.")
    return None


def plugin_loads(path: str | Path) -> bool:
    """Whether the dynamic loader loads ``path`` and every library it needs, in this process
    (for a Qt plugin, what Qt does next anyway)."""
    try:
        import ctypes

        ctypes.CDLL(str(path))
    except (OSError, ImportError):
        return False
    return True


def xcb_missing_libs() -> list[str]:
    """Unresolvable libraries of Qt's xcb platform plugin (what ``libxcb-cursor0`` & co. fix)."""
    plugin = qt_plugin_path("platforms", "libqxcb.so")
    if plugin is None or plugin_loads(plugin):  # loads: the usual case, no ldd child process
        return []
    return ldd_missing(plugin)


class StartupGuard:
    """A Qt message handler for the duration of QApplication's constructor.

    Qt reports a platform plugin it cannot load with a qFatal, which aborts the
    process.  The handler turns that into our message and a clean exit.
    """

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self.messages: list[tuple[int, str, str]] = []

    def __call__(self, mode, context, message) -> None:  # noqa: ANN001 - Qt's signature
        from PySide6 import QtCore

        category = getattr(context, "category", "") or ""
        self.messages.append((int(mode.value) if hasattr(mode, "value") else int(mode), category, message))
        if mode == QtCore.QtMsgType.QtFatalMsg:
            code, text = self.diagnose(message)
            try:
                sys.stderr.write(text + "\n")
                sys.stderr.flush()
            finally:
                os._exit(code)

    def diagnose(self, fatal: str) -> tuple[int, str]:
        """(exit status, message) for what Qt said before its fatal error."""
        for _, _, msg in self.messages:
            m = re.search(r"could not connect to display\s*(\S*)", msg)
            if m:
                shown = m.group(1) or os.environ.get("DISPLAY", "")
                return EXIT_NO_DISPLAY, no_display_message(
                    f"roofgui: cannot connect to the display {shown!r} (DISPLAY={os.environ.get('DISPLAY', '')!r}); "
                    "is the X server running, or is this an ssh session without X forwarding?")
        libs = xcb_missing_libs() + [l for _, _, msg in self.messages for l in sonames_in(msg)
                                     if "cannot open shared object" in msg]
        if libs:
            return EXIT_MISSING_LIBS, missing_libs_message(libs, gui_only=True)
        qt_said = " ".join(msg for _, _, msg in self.messages)
        return EXIT_MISSING_LIBS, generic_qt_failure_message(qt_said or fatal)

    def replay(self) -> None:
        """After a successful start: print Qt's warnings as Qt would have."""
        for mode, category, msg in self.messages:
            if mode in (1, 2):  # QtWarningMsg, QtCriticalMsg
                prefix = f"{category}: " if category and category != "default" else ""
                sys.stderr.write(f"{prefix}{msg}\n")
