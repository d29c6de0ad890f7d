"""The window's entry point: ``roofgui`` with no sub-command (and ``roofgui-gui``).

:func:`main` checks, before Qt can abort the process, that a window can be
opened at all:

* no display (Linux/BSD: neither ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set and no
  headless Qt platform asked for) → one message saying how to run headless or
  use ``roofgui analyze`` / ``roofgui export``; exit status 3;
* system libraries Qt needs are missing (PySide6's modules fail to import, or
  the xcb platform plugin has unresolved libraries according to ``ldd``) → a
  message naming the Debian packages to install; exit status 4;
* anything else that makes Qt give up while creating the application (a
  ``DISPLAY`` nobody answers on, a broken plugin) is caught by a temporary Qt
  message handler, which prints the same kind of message instead of Qt's abort.

Then it creates the :class:`QApplication` (with the window's Qt settings,
:data:`INTERACTIVE_QT_ENV`; names, desktop file name, window icon), installs the
unexpected-error hook (:mod:`roofgui.gui.errors_dialog`), opens
``MainWindow(catalog=None, open_path=...)`` and, once it is up, freezes the
start-up objects out of the garbage collector's sight
(:func:`freeze_startup_objects`).

Everything up to creating the application imports no Qt module at module level,
so the checks run even when Qt cannot be imported.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

APP_ID = "io.github.roofgui.RooflineExplorer"
APP_NAME = "roofgui"
APP_DISPLAY_NAME = "Roofline Explorer"
ORG_NAME = "roofgui"
ORG_DOMAIN = "roofgui.github.io"
ICON_FILE = f"{APP_ID}.svg"

EXIT_NO_DISPLAY = 3
EXIT_MISSING_LIBS = 4
EXIT_STARTUP_FAILED = 1

#: Qt platform plugins that need no X11 or Wayland display.
HEADLESS_PLATFORMS = frozenset({"offscreen", "minimal", "minimalegl", "vnc", "linuxfb", "eglfs",
                                "vkkhrdisplay"})

#: What a Debian/Ubuntu machine needs for Qt's xcb and offscreen platforms (what
#: scripts/setup.sh installs); printed when the exact missing library is unknown.
DEBIAN_QT_PACKAGES = (
    "libegl1", "libgl1", "libglib2.0-0", "libfontconfig1", "libfreetype6", "libxkbcommon0",
    "libxkbcommon-x11-0", "libdbus-1-3", "libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1",
    "libxcb-shape0", "libxcb-xinerama0", "libxcb-randr0", "libxcb-render-util0", "libxcb-image0",
    "libxcb-xkb1", "libx11-xcb1",
)

#: Shared libraries whose Debian package does not follow the soname rule.
_SONAME_EXCEPTIONS = {
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

_USAGE = """\
usage: roofgui [SCENARIO.json] [Qt options, e.g. -platform offscreen]
       roofgui gui --install-desktop | --uninstall-desktop

Opens the Roofline Explorer window (optionally with a scenario file).
  --install-desktop    add Roofline Explorer to your desktop's application menu (the
                       .desktop entry, icon and AppStream metainfo under ~/.local/share)
  --uninstall-desktop  remove them again
For the command line (chips, show-chip, analyze, export) see: roofgui --help"""

_HEADLESS_HINT = """\
  Without a window, use the command line, for example:
    roofgui chips
    roofgui analyze --chip h100-sxm --op matmul --dims B=256,D=8192,F=8192
    roofgui export scenario.json -o roofline.png
  or run the window headless: QT_QPA_PLATFORM=offscreen roofgui  (or: xvfb-run -a roofgui)"""

# Qt's own command-line options that take a value (so the value is not the file to open).
_QT_OPTS_WITH_VALUE = frozenset({"-platform", "-platformpluginpath", "-platformtheme", "-plugin",
                                 "-style", "-stylesheet", "-qwindowgeometry", "-qwindowtitle",
                                 "-qwindowicon", "-display", "-geometry", "-session", "-title",
                                 "-name", "-qmljsdebugger", "-font", "-fn", "-bg", "-fg",
                                 "-background", "-foreground", "-btn", "-button", "-visual",
                                 "-ncols", "-cmap", "-im", "-inputstyle"})


# -- resources ---------------------------------------------------------------------
def resource_path(*parts: str) -> Path | None:
    """A file shipped in ``roofgui.resources`` (the checkout's ``resources/``), or None."""
    from roofgui.model.paths import shipped_path

    here = shipped_path("resources", *parts)
    if here is not None and here.is_file():
        return here
    from importlib import resources

    candidates = []
    for anchor, prefix in (("roofgui.resources", ()), ("roofgui", ("resources",))):
        try:
            node = resources.files(anchor)
            for p in (*prefix, *parts):
                node = node / p
            candidates.append(node)
        except (ModuleNotFoundError, TypeError, ValueError, OSError):
            continue
    for node in candidates:
        try:
            if node.is_file():
                return Path(str(node))
        except OSError:
            continue
    checkout = Path(__file__).resolve().parents[1] / "resources" / Path(*parts)
    return checkout if checkout.is_file() else None


def icon_path() -> Path | None:
    """The scalable app icon."""
    return resource_path("icons", ICON_FILE)


# -- desktop integration (Linux/BSD: freedesktop.org menus and icon theme) ------------
def _data_home(data_home: str | Path | None = None) -> Path:
    if data_home is not None:
        return Path(data_home)
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def desktop_install_paths(data_home: str | Path | None = None) -> dict[str, Path]:
    """Where :func:`install_desktop_entry` puts each file."""
    base = _data_home(data_home)
    return {"desktop": base / "applications" / f"{APP_ID}.desktop",
            "icon": base / "icons" / "hicolor" / "scalable" / "apps" / ICON_FILE,
            "metainfo": base / "metainfo" / f"{APP_ID}.metainfo.xml"}


def launcher_command() -> list[str]:
    """The command a desktop menu should run to open the window (absolute paths)."""
    if getattr(sys, "frozen", False):  # the PyInstaller bundle's own executable
        return [str(Path(sys.executable).resolve()), "gui"]
    bindir = Path(sys.executable).parent
    cand = bindir / "roofgui-gui"  # pip/pipx put it beside the environment's python
    if cand.is_file() and os.access(cand, os.X_OK):
        return [str(cand)]
    found = shutil.which("roofgui-gui")
    if found:
        return [str(Path(found).resolve())]
    return [str(Path(sys.executable)), "-m", "roofgui", "gui"]


def desktop_exec_arg(arg: str) -> str:
    """Quote one argument for a .desktop file's Exec key (freedesktop.org rules)."""
    if re.fullmatch(r"[A-Za-z0-9_@+=:,./-]+", arg):
        return arg
    inner = arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace("$", "\\$")
    return f'"{inner}"'.replace("\\", "\\\\").replace("%", "%%")


def install_desktop_entry(data_home: str | Path | None = None,
                          command: Sequence[str] | None = None) -> dict[str, Path]:
    """Install the .desktop entry, the scalable icon and the metainfo for this user."""
    from roofgui.model.paths import atomic_write

    command = list(command or launcher_command())
    paths = desktop_install_paths(data_home)
    src = {"desktop": resource_path("linux", f"{APP_ID}.desktop"), "icon": icon_path(),
           "metainfo": resource_path("linux", f"{APP_ID}.metainfo.xml")}
    missing = [k for k, v in src.items() if v is None]
    if missing:
        raise FileNotFoundError(f"the packaged {', '.join(missing)} file is missing from this install")
    exec_line = " ".join(desktop_exec_arg(a) for a in command) + " %f"
    lines = []
    for line in src["desktop"].read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_line}"
        elif line.startswith("TryExec="):
            line = "TryExec=" + command[0].replace("\\", "\\\\")  # a plain string, not quoted
        lines.append(line)
    atomic_write(paths["desktop"], "\n".join(lines) + "\n")
    atomic_write(paths["icon"], src["icon"].read_bytes())
    atomic_write(paths["metainfo"], src["metainfo"].read_bytes())
    _refresh_desktop_caches(paths)
    return paths


def uninstall_desktop_entry(data_home: str | Path | None = None) -> list[Path]:
    removed = []
    paths = desktop_install_paths(data_home)
    for p in paths.values():
        if p.exists():
            p.unlink()
            removed.append(p)
    _refresh_desktop_caches(paths)
    return removed


def _refresh_desktop_caches(paths: Mapping[str, Path]) -> None:
    """Tell the menu and the icon theme about the change (best effort; tools may be absent).

    An icon cache is only refreshed if the user already has one: creating one in
    ~/.local/share/icons/hicolor would hide icons other apps install there later.
    """
    hicolor = paths["icon"].parents[2]
    cmds = [["update-desktop-database", "-q", str(paths["desktop"].parent)]]
    if (hicolor / "icon-theme.cache").exists():
        cmds.append(["gtk-update-icon-cache", "-q", "-t", "-f", str(hicolor)])
    for cmd in cmds:
        if shutil.which(cmd[0]) and Path(cmd[-1]).is_dir():
            try:
                subprocess.run(cmd, capture_output=True, timeout=30)
            except (OSError, subprocess.SubprocessError):
                pass


# -- argument handling -------------------------------------------------------------
def _split_args(argv: Sequence[str]) -> tuple[str | None, str | None]:
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
            elif name.lstrip("-") and ("-" + name.lstrip("-")) in _QT_OPTS_WITH_VALUE and not eq:
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


def _platform_usable(name: str, environ: Mapping[str, str]) -> bool:
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


def _uses_display_server(sys_platform: str) -> bool:
    return sys_platform.startswith(("linux", "freebsd", "openbsd", "netbsd", "dragonfly", "sunos"))


def chosen_platform(argv: Sequence[str], environ: Mapping[str, str] | None = None,
                    sys_platform: str | None = None) -> str | None:
    """The platform plugin Qt will end up using, or None if there is none (no display)."""
    environ = os.environ if environ is None else environ
    sys_platform = sys.platform if sys_platform is None else sys_platform
    if not _uses_display_server(sys_platform):
        return "native"
    _, platform_arg = _split_args(argv)
    for name in requested_platforms(platform_arg, environ):
        if _platform_usable(name, environ):
            return name
    return None


def no_display_message(detail: str | None = None) -> str:
    first = detail or ("roofgui: no display to open the window on "
                       "(neither DISPLAY nor WAYLAND_DISPLAY is set).")
    return f"{first}\n{_HEADLESS_HINT}"


def display_problem(argv: Sequence[str], environ: Mapping[str, str] | None = None,
                    sys_platform: str | None = None) -> str | None:
    """The no-display message, or None when a window can be opened."""
    environ = os.environ if environ is None else environ
    if chosen_platform(argv, environ, sys_platform) is not None:
        return None
    _, platform_arg = _split_args(argv)
    asked = platform_arg or environ.get("QT_QPA_PLATFORM")
    if asked:
        detail = (f"roofgui: no display to open the window on (Qt platform {asked!r} needs one, "
                  "and neither DISPLAY nor WAYLAND_DISPLAY is set).")
        return no_display_message(detail)
    return no_display_message()


# -- missing system libraries ------------------------------------------------------
def debian_package(soname: str) -> str | None:
    """The Debian/Ubuntu package that ships a shared library, by Debian's naming rule.

    ``libxcb-cursor.so.0`` → ``libxcb-cursor0``; ``libdbus-1.so.3`` → ``libdbus-1-3``;
    ``libEGL.so.1`` → ``libegl1``.  None for Qt's own libraries (``libQt6*``),
    which come with PySide6, not with the system.
    """
    soname = soname.strip()
    if soname in _SONAME_EXCEPTIONS:
        return _SONAME_EXCEPTIONS[soname]
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
                     "(pipx reinstall roofgui, or pip install --force-reinstall PySide6-Essentials).")
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
        _HEADLESS_HINT.replace("  Without a window", "  Meanwhile, without a window", 1),
        f"  (Qt said: {said[:400]})",
    ])


_SONAME_RE = re.compile(r"(lib[\w.+-]+?\.so(?:\.\d+)*)")


def sonames_in(text: str) -> list[str]:
    """Shared-library names mentioned in a loader error message."""
    return list(dict.fromkeys(_SONAME_RE.findall(text)))


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


def _import_model_first() -> None:
    """Import numpy and the Qt-free model before Qt.

    Once imported, PySide6 reads the source of every module imported after it (to
    find the ones that use its ``__feature__`` switches): about 0.3 ms a module,
    ~30 ms of start-up for these ~90, which need no such look."""
    import numpy  # noqa: F401

    from roofgui.model import catalog, llm, scenario  # noqa: F401
    from roofgui.presentation import plotdata  # noqa: F401
    from roofgui.presentation import report  # noqa: F401


def _quicker_pyside_source_check() -> None:
    """PySide6's look at each module imported after it, answered from the module's file.

    Once imported, PySide6 asks of every module imported after it (pyqtgraph's ~130, the
    window's ~40, and the standard library's that their imports name) whether its source
    holds "PySide6" (``shibokensupport.feature._mod_uses_pyside``, for its ``__feature__``
    switches), through ``inspect.getsource``: ~0.17 ms a module, ~43 ms of a start-up
    before the first paint.  The same question about a module's ``.py`` file is answered
    here from its bytes ("PySide6" is ASCII: in the text exactly when in the bytes of an
    ASCII-compatible encoding), ~0.02 ms; a built-in module (no file) is answered no, as
    PySide6 answers it; a module with another kind of file (a compiled extension, a
    bundle's) gets PySide6's own answer.  Nothing is changed if PySide6 no longer has
    that function (tests/test_app_startup.py checks the answers are PySide6's)."""
    feature = sys.modules.get("shibokensupport.feature")
    slow = getattr(feature, "_mod_uses_pyside", None)
    if not callable(slow) or getattr(slow, "roofgui_quick", False):
        return

    def uses_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if not path:  # (a built-in module: inspect.getsource raises TypeError, PySide6 says no)
            return False
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as f:
                    return b"PySide6" in f.read()
            except OSError:
                pass
        return slow(module)

    uses_pyside.roofgui_quick = True
    uses_pyside.pyside_own = slow
    feature._mod_uses_pyside = uses_pyside


def import_qt_problem() -> str | None:
    """Import Qt's GUI modules in a guarded way; the message to print if that fails."""
    try:
        from PySide6 import QtCore, QtGui, QtWidgets  # noqa: F401

        _quicker_pyside_source_check()  # (before pyqtgraph and the window are imported)
    except ImportError as e:
        text = str(e)
        libs = sonames_in(text)
        if libs:
            return missing_libs_message(libs, gui_only=False)
        return ("roofgui: the window cannot start: PySide6 (Qt for Python) could not be imported "
                f"({text}).\n  Reinstall roofgui (pipx reinstall roofgui, or pip install "
                "--force-reinstall PySide6-Essentials). roofgui chips, show-chip and analyze "
                "work without it.")
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
    if plugin is None:
        return []
    if plugin_loads(plugin):  # the usual case, at every start on X11: no ldd child process
        return []
    return ldd_missing(plugin)


# -- the application ---------------------------------------------------------------
class _StartupGuard:
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


#: Qt settings for the window, set (unless the user has) before its QApplication exists
INTERACTIVE_QT_ENV = {
    # Qt hands a fill or blend taller than ~96 rows (a legend's translucent background,
    # the roofline's region bands) to a pool of threads and waits for them.  On a
    # two-core machine the hand-off costs more than the fill: measured on the busy
    # scenario, a roofline keystroke took 7.1-7.8 ms to repaint without the pool
    # against 7.7-9.9 ms with it (the sweep's full-view repaints: 17.2-18.4 against
    # 16.1-19.6 ms, no clear difference).  Exports from the command line keep the
    # pool (roofgui.export.qtapp): a 4K picture is all large fills.
    "QT_NO_GUI_THREADPOOL": "1",
}


def use_interactive_qt_settings() -> None:
    """Set :data:`INTERACTIVE_QT_ENV` in the environment, where the user has not set it
    (call before the QApplication is created; Qt reads them then)."""
    for k, v in INTERACTIVE_QT_ENV.items():
        os.environ.setdefault(k, v)


def create_application(argv: Sequence[str] = ()):
    """The QApplication (reusing one that exists), named, with its icon and desktop file name."""
    from PySide6 import QtCore, QtGui, QtWidgets

    app = QtWidgets.QApplication.instance()
    if app is None:
        use_interactive_qt_settings()
        guard = _StartupGuard(argv)
        QtCore.qInstallMessageHandler(guard)
        try:
            app = QtWidgets.QApplication([sys.argv[0] if sys.argv and sys.argv[0] else APP_NAME, *argv])
        finally:
            QtCore.qInstallMessageHandler(None)
        guard.replay()
    QtCore.QCoreApplication.setOrganizationName(ORG_NAME)
    QtCore.QCoreApplication.setOrganizationDomain(ORG_DOMAIN)
    QtCore.QCoreApplication.setApplicationName(APP_NAME)
    from roofgui import __version__

    QtCore.QCoreApplication.setApplicationVersion(__version__)
    QtGui.QGuiApplication.setApplicationDisplayName(APP_DISPLAY_NAME)
    QtGui.QGuiApplication.setDesktopFileName(APP_ID)
    icon = load_icon()
    if icon is not None:
        QtGui.QGuiApplication.setWindowIcon(icon)
    return app


def load_icon():
    """The app icon as a QIcon (None if the file is missing)."""
    from PySide6 import QtGui

    path = icon_path()
    if path is None:
        return None
    icon = QtGui.QIcon(str(path))
    if icon.pixmap(64, 64).isNull():  # no SVG icon engine: render the sizes ourselves
        try:
            from PySide6 import QtSvg
        except ImportError:
            return icon
        renderer = QtSvg.QSvgRenderer(str(path))
        icon = QtGui.QIcon()
        for size in (16, 24, 32, 48, 64, 128, 256):
            img = QtGui.QImage(size, size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
            img.fill(0)
            painter = QtGui.QPainter(img)
            renderer.render(painter)
            painter.end()
            icon.addPixmap(QtGui.QPixmap.fromImage(img))
    return icon


def _smoke_check(app, window) -> None:
    """``--smoke-test``: report what started and quit (used by packaging/smoke_test.sh)."""
    from PySide6 import QtCore

    def done() -> None:
        icon_ok = not app.windowIcon().pixmap(64, 64).isNull()
        ok = window.isVisible() and icon_ok
        print(f"roofgui: smoke test {'ok' if ok else 'FAILED'}: platform {app.platformName()}, "
              f"window {'shown' if window.isVisible() else 'NOT shown'}, "
              f"icon {'ok' if icon_ok else 'MISSING'}", flush=True)
        app.exit(0 if ok else 1)

    QtCore.QTimer.singleShot(0, done)


#: how long after the window is shown :func:`freeze_startup_objects` runs (its first
#: paint is long done; the collection it starts with takes ~40 ms, once)
FREEZE_AFTER_MS = 1500


def freeze_startup_objects() -> int:
    """Collect garbage once, then move every object alive now out of the collector's sight.

    Start-up leaves ~76,000 objects the collector tracks (Qt's and pyqtgraph's wrappers,
    the catalog, the model's tables) that live as long as the window.  A full collection
    visits them all: about 40 ms, a stall of two or three frames that comes every few
    hundred keystrokes, as the undo steps and caches an edit keeps build up.  Frozen
    (``gc.freeze``), they are no longer visited, and a full collection looks at what the
    session made since.  The price: a frozen object that later becomes part of a garbage
    cycle is not freed (reference counting still frees the rest); the start-up objects
    are nearly all the window's own, which live as long as it does.  Returns how many
    objects were frozen.
    """
    import gc

    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def main(argv: Sequence[str] | None = None) -> int:
    """Open the window.  Returns the exit status (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print(_USAGE)
        return 0
    if "--install-desktop" in argv or "--uninstall-desktop" in argv:
        return _desktop_command("--install-desktop" in argv)
    smoke = "--smoke-test" in argv
    argv = [a for a in argv if a != "--smoke-test"]
    open_path, _ = _split_args(argv)

    problem = display_problem(argv)
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_NO_DISPLAY
    _import_model_first()
    problem = import_qt_problem()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_MISSING_LIBS
    if chosen_platform(argv) == "xcb":
        libs = xcb_missing_libs()
        if libs:
            print(missing_libs_message(libs, gui_only=True), file=sys.stderr)
            return EXIT_MISSING_LIBS

    app = create_application(argv)
    from roofgui.gui.errors_dialog import install_excepthook

    install_excepthook(app)
    try:
        from roofgui.gui.main_window import MainWindow

        window = MainWindow(catalog=None, open_path=open_path)
    except Exception as e:  # the window could not be built: say so, log it, stop
        _show_startup_failure(e)
        return EXIT_STARTUP_FAILED
    window.show()
    from PySide6 import QtCore

    QtCore.QTimer.singleShot(FREEZE_AFTER_MS, freeze_startup_objects)
    if smoke:
        _smoke_check(app, window)
    return app.exec()


def _desktop_command(install: bool) -> int:
    try:
        if install:
            paths = install_desktop_entry()
            print("roofgui: installed for this user:\n" + "\n".join(f"  {p}" for p in paths.values())
                  + "\nRoofline Explorer is now in your application menu (log out and in if it "
                  "does not show yet).")
        else:
            removed = uninstall_desktop_entry()
            print("roofgui: removed:\n" + "\n".join(f"  {p}" for p in removed) if removed
                  else "roofgui: nothing to remove")
    except OSError as e:
        print(f"roofgui: error: {e}", file=sys.stderr)
        return 1
    return 0


def _show_startup_failure(exc: BaseException) -> None:
    """Log the failure, print it, and (with a real display) say so in a message box."""
    from PySide6 import QtGui, QtWidgets

    from roofgui.gui.errors_dialog import format_report, one_line, write_log

    text = format_report(type(exc), exc, exc.__traceback__, "starting the main window")
    sys.stderr.write(text)
    path = write_log(text)
    where = f"The details were written to {path}." if path else "The details could not be logged."
    print(f"roofgui: the window could not be opened: {one_line(type(exc), exc)}. {where}",
          file=sys.stderr)
    app = QtWidgets.QApplication.instance()
    if isinstance(app, QtGui.QGuiApplication) and app.platformName() in HEADLESS_PLATFORMS:
        return  # nobody would see the box
    QtWidgets.QMessageBox.critical(
        None, "Roofline Explorer could not start",
        f"The window could not be opened:\n\n{one_line(type(exc), exc)}\n\n{where}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
