"""Missing system libraries: the Debian package of each, ldd, the xcb plugin check,
Qt import failures and the start-up guard's diagnosis of what Qt said."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from roofgui import app as app_mod
from roofgui.app import qtlibs

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
