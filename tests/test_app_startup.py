"""Starting the window: no display, the QApplication set-up, main()'s outcomes.
(Missing Qt libraries: test_qt_libraries.py; the error hook and About: test_app_window.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from roofgui import app as app_mod
from roofgui.app import display
from test_app_window import restore_hooks  # noqa: F401  (a fixture)

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
    from PySide6 import QtCore, QtWidgets

    made = []

    class MainWindow(QtWidgets.QMainWindow):
        def __init__(self, catalog=None, open_path=None, defer_features=False):
            if raise_in_init is not None:
                raise raise_in_init
            super().__init__()
            made.append(self)
            self.kwargs = {"catalog": catalog, "open_path": open_path,
                           "defer_features": defer_features}
            self.features = "installed" if not defer_features else None
            if defer_features:  # (as the real window: once it has been painted)
                QtCore.QTimer.singleShot(50, lambda: setattr(self, "features", "installed"))

    mod = types.ModuleType("roofgui.gui.main_window")
    mod.MainWindow = MainWindow
    monkeypatch.setitem(sys.modules, "roofgui.gui.main_window", mod)
    import roofgui.gui

    monkeypatch.setattr(roofgui.gui, "main_window", mod, raising=False)
    return made


def test_main_opens_the_window_with_the_file_and_installs_the_hook(qapp, monkeypatch, capsys, restore_hooks):
    made = _fake_main_window(monkeypatch)
    rc = app_mod.main(["my scenario.json", "--smoke-test"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "smoke test ok" in out and "icon ok" in out
    assert "features installed" in out
    assert len(made) == 1 and made[0].kwargs == {"catalog": None, "open_path": "my scenario.json",
                                                 "defer_features": True}
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
    assert "smoke test ok" in r.stdout and "features installed" in r.stdout


def _thread_names() -> list[str]:
    return [Path(f"/proc/self/task/{t}/comm").read_text().strip()
            for t in os.listdir("/proc/self/task")]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_the_window_paints_on_the_gui_thread_alone(qapp, monkeypatch):
    """Qt's pool of fill threads makes a keystroke's repaint wait for a free core: the app
    turns it off before Qt first paints, unless the user set the variable."""
    from roofgui.gui.main_window import MainWindow

    w = MainWindow(restore=False)  # (its legend's background is a fill over ~100 rows)
    w.resize(1280, 800)
    w.show()
    for _ in range(3):
        w.roofline_plot.viewport().repaint()
        qapp.processEvents()
    assert not [n for n in _thread_names() if "pooled" in n.lower()]
    w.close()
    w.deleteLater()
    monkeypatch.delenv("QT_NO_GUI_THREADPOOL", raising=False)
    app_mod.without_fill_threads()
    assert os.environ["QT_NO_GUI_THREADPOOL"] == "1"
    monkeypatch.setenv("QT_NO_GUI_THREADPOOL", "0")
    app_mod.without_fill_threads()
    assert os.environ["QT_NO_GUI_THREADPOOL"] == "0"  # (the user's own stays)


def test_a_scenario_file_with_qt_options_opens_the_window(qapp, monkeypatch, capsys, restore_hooks):
    # `roofgui FILE.json [Qt options]`, as the window's usage says (it went to the command
    # line's parser and failed on "invalid choice" when anything followed the file)
    from roofgui import cli
    from roofgui.app.display import opens_window

    made = _fake_main_window(monkeypatch)
    rc = cli.main(["my scenario.json", "-platform", "offscreen", "--smoke-test"])
    assert rc == 0, capsys.readouterr()
    assert made and made[0].kwargs["open_path"] == "my scenario.json"
    made[0].close()
    for argv in ([], ["gui"], ["open", "x.json"], ["x.json"], ["-platform", "offscreen"],
                 ["--smoke-test"], ["x.json", "-style", "Fusion"]):
        assert opens_window(argv), argv
    for argv in (["chips"], ["-h"], ["--help"], ["--version"], ["analyze", "--op", "dot"],
                 ["export", "x.json", "out.png"]):
        assert not opens_window(argv), argv
