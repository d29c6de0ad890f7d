"""Starting the window: no display, missing Qt libraries, the QApplication set-up,
the unexpected-error hook, and Help ▸ About."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from roofgui import app as app_mod
from roofgui.app import display, qtlibs

ROOT = Path(__file__).resolve().parents[1]

# Environment variables that tell Qt (or us) where a display is.
_DISPLAY_VARS = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_SESSION_TYPE",
                 "WAYLAND_SOCKET", "QT_QPA_PLATFORMTHEME")


def _env_without_display(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DISPLAY_VARS}
    runtime = tmp_path / "xdg-runtime"  # no wayland-0 socket in it
    runtime.mkdir(exist_ok=True)
    env["XDG_RUNTIME_DIR"] = str(runtime)
    env["ROOFGUI_HOME"] = str(tmp_path / "home")
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def _run(code_or_args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *code_or_args], capture_output=True, text=True,
                          env=env, cwd=str(ROOT), timeout=120)


# -- no display --------------------------------------------------------------------
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display variables are X11/Wayland's")
def test_no_display_prints_one_message_and_exits_nonzero(tmp_path):
    code = ("import sys; from roofgui.app import main; rc = main([]); "
            "print('PYSIDE_IMPORTED' if 'PySide6.QtWidgets' in sys.modules else 'NO_QT'); sys.exit(rc)")
    r = _run(["-c", code], _env_without_display(tmp_path))
    assert r.returncode == app_mod.EXIT_NO_DISPLAY, (r.stdout, r.stderr)
    assert "no display" in r.stderr
    assert "roofgui export" in r.stderr and "roofgui analyze" in r.stderr
    assert "QT_QPA_PLATFORM=offscreen" in r.stderr
    # our message only: no Qt abort, no traceback, and Qt was never even loaded
    assert "Traceback" not in r.stderr
    assert "qt.qpa" not in r.stderr and "could not load the Qt platform plugin" not in r.stderr.lower()
    assert r.stderr.count("roofgui:") == 1
    assert "NO_QT" in r.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="display variables are X11/Wayland's")
def test_no_display_through_the_roofgui_launcher(tmp_path):
    """`roofgui` with no sub-command goes through cli.main to app.main."""
    r = _run(["-m", "roofgui"], _env_without_display(tmp_path))
    assert r.returncode == app_mod.EXIT_NO_DISPLAY, (r.stdout, r.stderr)
    assert "no display" in r.stderr and "roofgui export" in r.stderr
    # ... while the command line itself still works without a display
    r = _run(["-m", "roofgui", "chips"], _env_without_display(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "tpu-v5e" in r.stdout


def _free_x_display() -> str | None:
    for n in range(97, 120):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return f":{n}"
    return None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 only")
def test_unreachable_display_is_our_message_not_a_qt_abort(tmp_path):
    """DISPLAY is set but nothing listens: Qt would qFatal/abort; we print and exit 3."""
    if app_mod.xcb_missing_libs():
        pytest.skip(f"the xcb plugin cannot load here (missing {app_mod.xcb_missing_libs()}); "
                    "scripts/setup.sh installs the libraries")
    display = _free_x_display()
    if display is None:
        pytest.skip("no free X display number to point at")
    r = _run(["-c", "import sys; from roofgui.app import main; sys.exit(main([]))"],
             _env_without_display(tmp_path, DISPLAY=display, QT_QPA_PLATFORM="xcb"))
    assert r.returncode == app_mod.EXIT_NO_DISPLAY, (r.returncode, r.stderr)
    assert f"cannot connect to the display '{display}'" in r.stderr
    assert "roofgui export" in r.stderr
    assert "This application failed to start" not in r.stderr  # Qt's abort text
    assert r.returncode != -6  # not SIGABRT


@pytest.mark.parametrize("environ, argv, platform, expected", [
    ({}, [], "linux", None),
    ({"DISPLAY": ":0"}, [], "linux", "xcb"),
    ({"WAYLAND_DISPLAY": "wayland-0"}, [], "linux", "wayland"),
    ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, [], "linux", "wayland"),
    ({"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":0"}, [], "linux", "xcb"),  # no wayland socket: xcb
    ({"QT_QPA_PLATFORM": "offscreen"}, [], "linux", "offscreen"),
    ({"QT_QPA_PLATFORM": "offscreen:fontengine=freetype"}, [], "linux", "offscreen"),
    ({"QT_QPA_PLATFORM": "minimal"}, [], "linux", "minimal"),
    ({"QT_QPA_PLATFORM": "xcb"}, [], "linux", None),
    ({"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":1"}, [], "linux", "xcb"),
    ({}, ["-platform", "offscreen"], "linux", "offscreen"),
    ({}, ["scenario.json", "-platform", "vnc"], "linux", "vnc"),
    ({"QT_QPA_PLATFORM": "xcb"}, ["-platform", "offscreen"], "linux", "offscreen"),
    ({}, [], "freebsd14", None),
    ({}, [], "darwin", "native"),
    ({}, [], "win32", "native"),
])
def test_chosen_platform(environ, argv, platform, expected, tmp_path):
    environ = {"XDG_RUNTIME_DIR": str(tmp_path), **environ}
    assert app_mod.chosen_platform(argv, environ, platform) == expected
    problem = app_mod.display_problem(argv, environ, platform)
    assert (problem is None) == (expected is not None)
    if problem:
        assert "roofgui export" in problem


def test_wayland_default_socket_counts_as_a_display(tmp_path):
    (tmp_path / "wayland-0").touch()
    env = {"XDG_RUNTIME_DIR": str(tmp_path), "QT_QPA_PLATFORM": "wayland"}
    assert app_mod.chosen_platform([], env, "linux") == "wayland"


def test_explicit_platform_without_display_names_it():
    msg = app_mod.display_problem([], {"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert "'xcb'" in msg and "DISPLAY" in msg


@pytest.mark.parametrize("argv, path", [
    ([], None),
    (["a.json"], "a.json"),
    (["-platform", "offscreen", "b.json"], "b.json"),
    (["-style", "Fusion", "c.json", "d.json"], "c.json"),
    (["--style", "Fusion"], None),
    (["-reverse", "e.json"], "e.json"),
])
def test_file_argument_is_not_a_qt_option_value(argv, path):
    assert display.split_args(argv)[0] == path


# -- missing system libraries ------------------------------------------------------
@pytest.mark.parametrize("soname, package", [
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-shape.so.0", "libxcb-shape0"),
    ("libxcb-xinerama.so.0", "libxcb-xinerama0"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libEGL.so.1", "libegl1"),
    ("libGL.so.1", "libgl1"),
    ("libOpenGL.so.0", "libopengl0"),
    ("libfontconfig.so.1", "libfontconfig1"),
    ("libdbus-1.so.3", "libdbus-1-3"),
    ("libX11-xcb.so.1", "libx11-xcb1"),
    ("libglib-2.0.so.0", "libglib2.0-0"),
    ("libz.so.1", "zlib1g"),
    ("libQt6XcbQpa.so.6", None),
    ("not-a-library", None),
])
def test_debian_package_names(soname, package):
    assert qtlibs.debian_package(soname) == package


def _path_variants(path: str) -> list[str]:
    out = []
    for p in (path, os.path.realpath(path)):
        out += [p, p.replace("/usr/lib/", "/lib/", 1), p.replace("/lib/", "/usr/lib/", 1)]
    return list(dict.fromkeys(out))


def _dpkg_owners(paths: list[str]) -> dict[str, str]:
    """path -> owning package, from one ``dpkg -S`` call (paths no package owns are left out)."""
    r = subprocess.run(["dpkg", "-S", *paths], capture_output=True, text=True)
    owners = {}
    for line in r.stdout.splitlines():
        pkg, sep, path = line.partition(": ")
        if sep and "," not in pkg:
            owners[path.strip()] = pkg.split(":", 1)[0].strip()
    return owners


@pytest.mark.skipif(shutil.which("dpkg") is None or shutil.which("ldd") is None,
                    reason="needs dpkg and ldd (Debian/Ubuntu)")
def test_debian_package_names_match_what_dpkg_says_ships_each_qt_dependency():
    """Ground truth: every system library Qt's GUI loads here, and the package dpkg says owns it."""
    from PySide6 import QtCore

    lib = Path(QtCore.QLibraryInfo.path(QtCore.QLibraryInfo.LibraryPath.LibrariesPath))
    files = [p for p in (qtlibs.qt_plugin_path("platforms", "libqxcb.so"),
                         lib / "libQt6Gui.so.6", lib / "libQt6Widgets.so.6") if p and p.exists()]
    resolved: dict[str, str] = {}
    for f in files:
        out = subprocess.run(["ldd", str(f)], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if "=>" not in line:
                continue
            name, rest = (s.strip() for s in line.split("=>", 1))
            path = rest.split(" (", 1)[0]
            if path.startswith("/") and "PySide6" not in path and "shiboken" not in path:
                resolved[name] = path
    owners = _dpkg_owners([v for p in resolved.values() for v in _path_variants(p)])
    checked = 0
    for name, path in sorted(resolved.items()):
        owner = next((owners[v] for v in _path_variants(path) if v in owners), None)
        if owner is None:
            continue  # not from a package (e.g. a locally built library)
        ours = qtlibs.debian_package(name)
        assert ours in (owner, owner.removesuffix("t64")), f"{name}: dpkg says {owner}, we say {ours}"
        checked += 1
    if checked == 0:
        pytest.skip("no packaged Qt dependencies resolved on this machine")
    assert checked >= 10


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd")
def test_ldd_missing_reports_libraries_that_do_not_resolve(tmp_path):
    """A copy of the xcb plugin away from PySide6's lib dir: its Qt libraries do not resolve."""
    plugin = qtlibs.qt_plugin_path("platforms", "libqxcb.so")
    if plugin is None:
        pytest.skip("PySide6 has no xcb plugin here")
    copy = tmp_path / "platforms" / "libqxcb.so"
    copy.parent.mkdir()
    shutil.copy2(plugin, copy)
    missing = qtlibs.ldd_missing(copy)
    assert "libQt6XcbQpa.so.6" in missing and "libQt6Gui.so.6" in missing
    msg = qtlibs.missing_libs_message(missing, gui_only=True)
    assert "reinstall roofgui" in msg and "libQt6XcbQpa.so.6" in msg
    # the installed plugin resolves here (scripts/setup.sh installed what it needs)
    assert all(m.startswith("libQt6") is False for m in qtlibs.ldd_missing(plugin))


def test_xcb_check_runs_no_ldd_when_the_plugin_loads(monkeypatch):
    """At every start on X11: the plugin is loaded in-process (as Qt does next), no ldd child."""
    plugin = qtlibs.qt_plugin_path("platforms", "libqxcb.so")
    if plugin is None or not sys.platform.startswith("linux"):
        pytest.skip("PySide6 has no xcb plugin here")
    if shutil.which("ldd") and qtlibs.ldd_missing(plugin):
        pytest.skip("the xcb plugin's libraries are not all installed here")
    assert qtlibs.plugin_loads(plugin)

    def no_ldd(path):
        raise AssertionError("ldd was run although the plugin loads")

    monkeypatch.setattr(qtlibs, "ldd_missing", no_ldd)
    assert qtlibs.xcb_missing_libs() == []


def test_xcb_check_asks_ldd_which_libraries_are_missing_when_the_plugin_does_not_load(monkeypatch,
                                                                                     tmp_path):
    plugin = tmp_path / "libqxcb.so"
    plugin.write_bytes(b"not a shared library")
    assert not qtlibs.plugin_loads(plugin)
    assert not qtlibs.plugin_loads(tmp_path / "missing.so")
    monkeypatch.setattr(qtlibs, "qt_plugin_path", lambda kind, name: plugin)
    asked = []
    monkeypatch.setattr(qtlibs, "ldd_missing", lambda p: asked.append(p) or ["libxcb-cursor.so.0"])
    assert qtlibs.xcb_missing_libs() == ["libxcb-cursor.so.0"] and asked == [plugin]
    monkeypatch.setattr(qtlibs, "qt_plugin_path", lambda kind, name: None)
    assert qtlibs.xcb_missing_libs() == []


def test_main_names_debian_packages_when_xcb_libraries_are_missing(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setattr(app_mod, "xcb_missing_libs", lambda: ["libxcb-cursor.so.0", "libxcb-icccm.so.4"])
    rc = app_mod.main([])
    err = capsys.readouterr().err
    assert rc == app_mod.EXIT_MISSING_LIBS
    assert "sudo apt install libxcb-cursor0 libxcb-icccm4" in err
    assert "roofgui export" in err  # the command line still works


def test_qt_import_failure_names_the_debian_package(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("PySide6"):
            raise ImportError("libEGL.so.1: cannot open shared object file: No such file or directory")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    msg = qtlibs.import_qt_problem()
    assert msg is not None and "sudo apt install libegl1" in msg
    assert "roofgui chips" in msg


def test_qt_not_installed_message(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("PySide6"):
            raise ModuleNotFoundError("No module named 'PySide6'", name="PySide6")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    msg = qtlibs.import_qt_problem()
    assert msg is not None and "PySide6" in msg and "reinstall" in msg.lower()


def test_startup_guard_diagnoses_what_qt_said(monkeypatch):
    """The messages Qt 6.11 emits before its qFatal, recorded from a real failing start."""
    monkeypatch.setattr(qtlibs, "xcb_missing_libs", lambda: [])
    fatal = "This application failed to start because no Qt platform plugin could be initialized."
    g = qtlibs.StartupGuard([])
    g.messages = [(1, "qt.qpa.xcb", "could not connect to display :77"),
                  (1, "qt.qpa.plugin", "From 6.5.0, xcb-cursor0 or libxcb-cursor0 is needed to load the Qt xcb platform plugin."),
                  (4, "qt.qpa.plugin", 'Could not load the Qt platform plugin "xcb" in "" even though it was found.')]
    code, text = g.diagnose(fatal)
    assert code == app_mod.EXIT_NO_DISPLAY and "':77'" in text
    g.messages = [(1, "qt.qpa.plugin", "Cannot load library libqxcb.so: (libxcb-cursor.so.0: cannot open shared object file: No such file or directory)")]
    code, text = g.diagnose(fatal)
    assert code == app_mod.EXIT_MISSING_LIBS and "sudo apt install libxcb-cursor0" in text
    g.messages = []
    code, text = g.diagnose(fatal)
    assert code == app_mod.EXIT_MISSING_LIBS and "libxcb-cursor0" in text and "Qt said" in text


# -- the application -----------------------------------------------------------------
def test_icon_resource_is_a_valid_svg(qapp):
    from PySide6 import QtSvg

    path = app_mod.icon_path()
    assert path is not None and path.name == "io.github.roofgui.RooflineExplorer.svg"
    assert QtSvg.QSvgRenderer(str(path)).isValid()


def test_create_application_sets_names_desktop_file_and_icon(qapp):
    from PySide6 import QtGui

    app = app_mod.create_application([])
    assert app is qapp
    assert app.applicationName() == "roofgui" and app.organizationName() == "roofgui"
    assert QtGui.QGuiApplication.applicationDisplayName() == "Roofline Explorer"
    assert QtGui.QGuiApplication.desktopFileName() == app_mod.APP_ID
    assert not app.windowIcon().pixmap(64, 64).isNull()
    # the desktop file name is the shipped .desktop file's id
    assert (ROOT / "resources" / "linux" / f"{app_mod.APP_ID}.desktop").is_file()


def _fake_main_window(monkeypatch, raise_in_init: Exception | None = None):
    from PySide6 import QtWidgets

    made = []

    class MainWindow(QtWidgets.QMainWindow):
        def __init__(self, catalog=None, open_path=None):
            if raise_in_init is not None:
                raise raise_in_init
            super().__init__()
            made.append(self)
            self.kwargs = {"catalog": catalog, "open_path": open_path}

    mod = types.ModuleType("roofgui.gui.main_window")
    mod.MainWindow = MainWindow
    monkeypatch.setitem(sys.modules, "roofgui.gui.main_window", mod)
    import roofgui.gui

    monkeypatch.setattr(roofgui.gui, "main_window", mod, raising=False)
    return made


@pytest.fixture
def restore_hooks():
    before = (sys.excepthook, threading.excepthook)
    yield
    from roofgui.gui import errors_dialog

    if errors_dialog.current_reporter() is not None:
        errors_dialog.current_reporter().uninstall()
        errors_dialog._reporter = None
    sys.excepthook, threading.excepthook = before


def test_main_opens_the_window_with_the_file_and_installs_the_hook(qapp, monkeypatch, capsys, restore_hooks):
    made = _fake_main_window(monkeypatch)
    rc = app_mod.main(["my scenario.json", "--smoke-test"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "smoke test ok" in out and "icon ok" in out
    assert len(made) == 1 and made[0].kwargs == {"catalog": None, "open_path": "my scenario.json"}
    from roofgui.gui import errors_dialog

    rep = errors_dialog.current_reporter()
    assert rep is not None and sys.excepthook == rep.excepthook
    assert threading.excepthook == rep.thread_excepthook
    made[0].close()


def test_main_window_failing_to_build_is_logged_and_exits_1(qapp, monkeypatch, capsys, restore_hooks):
    _fake_main_window(monkeypatch, raise_in_init=RuntimeError("window exploded"))
    rc = app_mod.main([])
    assert rc == app_mod.EXIT_STARTUP_FAILED
    err = capsys.readouterr().err
    assert "window exploded" in err
    from roofgui.gui.errors_dialog import log_file

    text = log_file().read_text()
    assert "RuntimeError: window exploded" in text and "Traceback" in text


def test_help(capsys):
    assert app_mod.main(["--help"]) == 0
    assert "usage: roofgui" in capsys.readouterr().out


def _real_main_window_exists() -> bool:
    import importlib.util

    return importlib.util.find_spec("roofgui.gui.main_window") is not None


@pytest.mark.skipif(not _real_main_window_exists(), reason="roofgui/gui/main_window.py not written yet")
def test_real_window_starts_headless_in_a_fresh_process(tmp_path):
    env = _env_without_display(tmp_path, QT_QPA_PLATFORM="offscreen")
    r = _run(["-m", "roofgui", "gui", "--smoke-test"], env)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "smoke test ok" in r.stdout


# -- the unexpected-error hook ---------------------------------------------------------
@pytest.fixture
def reporter(qapp, restore_hooks):
    from roofgui.gui import errors_dialog

    rep = errors_dialog.install_excepthook(qapp)
    yield rep
    if rep.dialog is not None:
        rep.dialog.close()


def _log_text() -> str:
    from roofgui.gui.errors_dialog import log_file

    return log_file().read_text(encoding="utf-8") if log_file().exists() else ""


@pytest.mark.qt_no_exception_capture
def test_exception_in_a_slot_is_logged_shown_and_the_app_keeps_running(qapp, qtbot, reporter):
    from PySide6 import QtCore, QtWidgets

    w = QtWidgets.QWidget()
    bad = QtWidgets.QPushButton("bad", w)
    good = QtWidgets.QPushButton("good", w)
    clicks = []

    def boom():
        raise ValueError("the slot broke: 42")

    bad.clicked.connect(boom)
    good.clicked.connect(lambda: clicks.append(1))
    qtbot.addWidget(w)
    w.show()

    qtbot.mouseClick(bad, QtCore.Qt.MouseButton.LeftButton)  # a real click, a real slot
    QtWidgets.QApplication.processEvents()
    assert reporter.handled == 1
    assert "ValueError: the slot broke: 42" in _log_text()
    assert "Traceback" in _log_text() and "boom" in _log_text()
    dlg = reporter.dialog
    assert dlg is not None and dlg.isVisible() and not dlg.isModal()
    assert "the slot broke: 42" in dlg.details.toPlainText()
    assert "still running" in dlg.summary_label.text()
    assert str(_log_path()) in dlg.log_label.text()

    # the app carries on: other slots run, and a second error joins the same dialog
    qtbot.mouseClick(good, QtCore.Qt.MouseButton.LeftButton)
    assert clicks == [1]
    bad.click()
    QtWidgets.QApplication.processEvents()
    assert reporter.dialog is dlg and dlg.count == 2
    dlg.copy_details()
    assert "the slot broke: 42" in QtWidgets.QApplication.clipboard().text()


def _log_path():
    from roofgui.gui.errors_dialog import log_file

    return log_file()


@pytest.mark.qt_no_exception_capture
def test_exception_in_an_event_handler_and_in_a_thread(qapp, reporter, monkeypatch):
    from PySide6 import QtCore, QtWidgets

    from roofgui.gui import errors_dialog

    shown = []
    monkeypatch.setattr(errors_dialog, "show_error_dialog",
                        lambda s, d, p: shown.append((s, d, p)) or None)

    class Broken(QtWidgets.QWidget):
        def event(self, e):
            if e.type() == QtCore.QEvent.Type.User:
                raise KeyError("event handler")
            return super().event(e)

    b = Broken()
    QtWidgets.QApplication.postEvent(b, QtCore.QEvent(QtCore.QEvent.Type.User))
    QtWidgets.QApplication.processEvents()
    t = threading.Thread(target=lambda: 1 / 0, name="worker-7")
    t.start()
    t.join()
    QtWidgets.QApplication.processEvents()  # the thread's report is queued to the GUI thread
    assert [s for s, _, _ in shown] == ["KeyError: 'event handler'", "ZeroDivisionError: division by zero"]
    log = _log_text()
    assert "KeyError: 'event handler'" in log
    assert "in thread worker-7" in log and "ZeroDivisionError" in log


def test_a_repeating_error_is_logged_in_full_a_few_times_then_counted(qapp, reporter, monkeypatch):
    from roofgui.gui import errors_dialog

    monkeypatch.setattr(errors_dialog, "show_error_dialog", lambda s, d, p: None)
    for _ in range(errors_dialog.COUNT_EVERY):
        try:
            raise RuntimeError("every frame")
        except RuntimeError as e:
            reporter.handle(type(e), e, e.__traceback__)
    log = _log_text()
    assert log.count("Traceback") == errors_dialog.FULL_REPORTS_PER_SIGNATURE
    assert f"the same error again ({errors_dialog.COUNT_EVERY} times so far)" in log
    assert reporter.handled == errors_dialog.COUNT_EVERY


def test_the_hook_survives_an_unwritable_log_directory(qapp, reporter, tmp_path, monkeypatch, capsys):
    from PySide6 import QtWidgets

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the log directory should be")
    monkeypatch.setenv("ROOFGUI_HOME", str(blocker))
    try:
        raise OSError("disk trouble")
    except OSError as e:
        reporter.handle(type(e), e, e.__traceback__)  # must not raise
    QtWidgets.QApplication.processEvents()
    assert reporter.dialog is not None and "could not be written" in reporter.dialog.log_label.text()
    assert "OSError: disk trouble" in capsys.readouterr().err


def test_keyboard_interrupt_is_not_reported(qapp, reporter, monkeypatch):
    from roofgui.gui import errors_dialog

    calls = []
    monkeypatch.setattr(sys, "__excepthook__", lambda *a: calls.append(a))
    reporter.handle(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert reporter.handled == 0 and len(calls) == 1
    assert not errors_dialog.log_file().exists()


def test_listeners_hear_every_error_and_a_failing_listener_is_ignored(qapp, reporter, monkeypatch):
    from roofgui.gui import errors_dialog

    monkeypatch.setattr(errors_dialog, "show_error_dialog", lambda s, d, p: None)
    heard = []

    def bad_listener(*a):
        raise RuntimeError("listener broke")

    before = list(errors_dialog._listeners)  # (autosave's own listener stays for later tests)
    errors_dialog.add_error_listener(bad_listener)
    errors_dialog.add_error_listener(lambda t, e, tb: heard.append(str(e)))
    try:
        errors_dialog.report_exception(ValueError("told"))
    finally:
        errors_dialog._listeners[:] = before
    assert heard == ["told"] and reporter.handled == 1


# -- Help ▸ About ------------------------------------------------------------------------
def test_about_shows_version_catalog_sources_and_licence(qtbot):
    from roofgui import __version__
    from roofgui.gui import about
    from roofgui.model.catalog import CATALOG_VERSION, Catalog

    cat = Catalog.load(user_dir=False)
    dlg = about.show_about(None, cat)
    qtbot.addWidget(dlg)
    assert dlg.isVisible()  # open() does not block
    header = dlg.header.text()
    assert __version__ in header and CATALOG_VERSION in header and "MIT" in header
    assert f"{len(cat)} shipped chips" in header
    text = dlg.sources.toPlainText()
    every = {t.strip() for c in cat for t in c.sources.values()}
    assert len(every) > 10
    for src in every:  # every source of every shipped chip is listed...
        assert " ".join(src.split()) in " ".join(text.split()), src
    assert len(about.shipped_sources(cat)) == len(every)  # ...once
    assert "tpu-v5e" not in every and "Google TPU v5e" in text  # cited-for names the chips
    assert dlg.licence.toPlainText() == about.LICENSE_TEXT
    assert 'href="https://' in dlg.sources.toHtml()
    dlg.close()


def test_about_licence_text_is_the_license_file():
    from roofgui.gui.about import LICENSE_TEXT

    assert (ROOT / "LICENSE").read_text(encoding="utf-8") == LICENSE_TEXT


def test_about_ignores_user_chips(qtbot, tmp_path):
    from roofgui.gui import about
    from roofgui.model.catalog import Catalog

    cat = Catalog.load(user_dir=False)
    builtin = about.shipped_sources(cat)
    from dataclasses import replace

    mine = replace(next(iter(cat)), id="my-chip", name="My Chip", builtin=False,
                   sources={"X": "my private notes"})
    cat.chips["my-chip"] = mine
    assert about.shipped_sources(cat) == builtin


# -- the sweep tab ----------------------------------------------------------------------
@pytest.fixture
def shipped_catalog():
    from roofgui.model.catalog import Catalog

    return Catalog.load(user_dir=False)


def _close(w) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    w.doc.load(w.doc.scenario)  # no unsaved-changes question
    w.close()
    w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_the_sweep_tab_shows_the_models_sweep_and_follows_edits(qtbot, shipped_catalog):
    from roofgui.gui.main_window import TAB_SWEEP, MainWindow
    from roofgui.plotting.sweep_plot import SweepPlot
    from roofgui.model.scenario import sweep_scenario

    w = MainWindow(catalog=shipped_catalog, restore=False)
    w.show()
    qtbot.waitExposed(w)
    w.live.flush()
    w.tabs.setCurrentIndex(TAB_SWEEP)
    w.live.flush()
    plot = w.sweep_plot
    assert isinstance(plot, SweepPlot)
    assert w.sweep_stack.currentWidget() is plot and w.current_plot() is plot
    assert plot.isVisible() and plot.accessibleName() == "Sweep plot"
    assert plot.style == w.roofline_plot.style  # the window's (light or dark) style
    curves, _ = sweep_scenario(w.doc.scenario, shipped_catalog)
    assert curves and set(plot.curves) == {(c.op_index, c.phase, c.chip.id) for c in curves}
    for c in curves:  # each curve is the model's (drawn as log10 values)
        key = (c.op_index, c.phase, c.chip.id)
        assert plot.curves[key].isVisible()
    assert plot.geometry is not None and plot.geometry.lines
    # later edits reach it like any plot
    before = {k: tuple(map(tuple, c.getData())) for k, c in plot.curves.items()}
    w.doc.edit("Set D", lambda s: s.ops[0].dims.__setitem__("D", 1024))
    w.live.flush()
    after = {k: tuple(map(tuple, c.getData())) for k, c in plot.curves.items()}
    assert after != before
    _close(w)
