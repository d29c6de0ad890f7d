"""Packaging: the wheel (contents, and `roofgui chips` from a fresh virtual environment),
the Linux desktop entry, AppStream metainfo and icon, installing them for a user, and
the PyInstaller recipe's exclusions."""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

import roofgui
from roofgui import app as app_mod

ROOT = Path(__file__).resolve().parents[1]
APP_ID = "io.github.roofgui.RooflineExplorer"
DESKTOP = ROOT / "resources" / "linux" / f"{APP_ID}.desktop"
METAINFO = ROOT / "resources" / "linux" / f"{APP_ID}.metainfo.xml"
ICON = ROOT / "resources" / "icons" / f"{APP_ID}.svg"


def _clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """No checkout on the path, a scratch home, no display."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM",
                        "XDG_SESSION_TYPE", "VIRTUAL_ENV")}
    env["ROOFGUI_HOME"] = str(tmp_path / "home")
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    env.update(extra)
    return env


# -- the wheel -----------------------------------------------------------------------------
#: What a source distribution of the project consists of (copied to build the wheel).
SOURCE_DIRS = ("roofgui", "specs", "resources")
SOURCE_FILES = ("pyproject.toml", "README.md", "LICENSE")


def _source_files(directory: str) -> list[Path]:
    return sorted(p for p in (ROOT / directory).rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build the wheel once for this module (pip's isolated PEP 517 build) from a copy
    of the sources, so the build neither leaves build/ and egg-info behind in the
    checkout nor picks up stale files from an earlier in-tree build/lib."""
    src = tmp_path_factory.mktemp("src") / "roofgui-src"
    for d in SOURCE_DIRS:
        shutil.copytree(ROOT / d, src / d, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for f in SOURCE_FILES:
        if (ROOT / f).exists():
            shutil.copy2(ROOT / f, src / f)
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    wheels = list(out.glob("roofgui-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_holds_code_specs_resources_licence_and_launchers(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    # every module of the package (a sub-package missing from pyproject's list would be lost)
    for py in _source_files("roofgui"):
        if py.suffix == ".py":
            rel = py.relative_to(ROOT).as_posix()
            assert rel in names, f"{rel} is not in the wheel (add its package to pyproject.toml)"
    # the chip catalog: specs/ -> roofgui/specs/
    specs = [p for p in _source_files("specs")
             if p.suffix == ".toml" or p.name == "README.md"]
    assert len([p for p in specs if p.suffix == ".toml"]) >= 10
    for p in specs:
        assert "roofgui/specs/" + p.relative_to(ROOT / "specs").as_posix() in names, p
    # resources/ -> roofgui/resources/ (icon, desktop entry, metainfo, examples)
    res = _source_files("resources")
    assert any(p.suffix == ".svg" for p in res) and any(p.suffix == ".desktop" for p in res)
    for p in res:
        assert "roofgui/resources/" + p.relative_to(ROOT / "resources").as_posix() in names, p
    # the licence, and both launchers
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names)
    ep = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    cfg = configparser.ConfigParser()
    cfg.read_string(zipfile.ZipFile(wheel).read(ep).decode())
    assert cfg["console_scripts"]["roofgui"].strip() == "roofgui.cli:main"
    assert cfg["gui_scripts"]["roofgui-gui"].strip() == "roofgui.app:main"
    meta = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert f"Version: {roofgui.__version__}" in meta
    # nothing from the test suite or the build tree
    assert not any(n.startswith(("tests/", "packaging/", "build/")) for n in names)


@pytest.fixture(scope="module")
def fresh_venv(wheel, tmp_path_factory) -> Path:
    """A new virtual environment with the wheel installed from the file.

    The wheel is installed with --no-deps into an empty environment; the heavy
    dependencies (numpy, PySide6, pyqtgraph) are then made importable by a .pth line
    pointing at this interpreter's site-packages, *after* the install, so pip never
    sees the developer's editable roofgui.  A plain path line in a .pth does not run
    the editable finder there, so `import roofgui` can only find the installed wheel.
    """
    venv = tmp_path_factory.mktemp("venv") / "fresh env"  # a space, as in real home dirs
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps",
                        "--no-index", str(wheel)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "zz_roofgui_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def test_installed_wheel_runs_roofgui_chips_from_a_fresh_venv(fresh_venv, tmp_path):
    bindir = fresh_venv / "bin"
    assert (bindir / "roofgui").is_file() and (bindir / "roofgui-gui").is_file()
    env = _clean_env(tmp_path)
    # it really is the installed copy, with the catalog and the icon inside it
    probe = ("import roofgui, roofgui.app as a, roofgui.model.catalog as c; "
             "print(roofgui.__file__); print(a.icon_path()); print(len(c.builtin_spec_files()))")
    r = subprocess.run([str(bindir / "python"), "-c", probe], capture_output=True, text=True,
                       env=env, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    mod_file, icon, n_specs = r.stdout.split("\n")[:3]
    site = str(fresh_venv)
    assert mod_file.startswith(site), f"imported {mod_file}, not the installed wheel"
    assert icon.startswith(site) and icon.endswith(f"{APP_ID}.svg")
    n_checkout = len(list((ROOT / "specs").glob("*.toml")))
    assert int(n_specs) == n_checkout

    r = subprocess.run([str(bindir / "roofgui"), "chips"], capture_output=True, text=True,
                       env=env, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    ids = [line.split()[0] for line in r.stdout.splitlines()[1:] if line.strip()]
    assert len(ids) == n_checkout
    assert {"tpu-v5e", "h100-sxm", "mi300x"} <= set(ids)

    r = subprocess.run([str(bindir / "roofgui"), "analyze", "--chip", "tpu-v5e", "--op", "matmul",
                        "--dims", "B=256,D=8192,F=8192", "--json"],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    assert '"t_lower"' in r.stdout


def test_installed_launcher_without_a_display_prints_the_message(fresh_venv, tmp_path):
    r = subprocess.run([str(fresh_venv / "bin" / "roofgui")], capture_output=True, text=True,
                       env=_clean_env(tmp_path), cwd=str(tmp_path), timeout=120)
    assert r.returncode == app_mod.EXIT_NO_DISPLAY
    assert "no display" in r.stderr and "roofgui export" in r.stderr


@pytest.mark.skipif(importlib.util.find_spec("roofgui.gui.main_window") is None,
                    reason="roofgui/gui/main_window.py not written yet")
def test_installed_window_starts_headless_with_its_icon(fresh_venv, tmp_path):
    r = subprocess.run([str(fresh_venv / "bin" / "roofgui-gui"), "--smoke-test"],
                       capture_output=True, text=True, cwd=str(tmp_path), timeout=120,
                       env=_clean_env(tmp_path, QT_QPA_PLATFORM="offscreen"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "smoke test ok" in r.stdout and "icon ok" in r.stdout


def test_installed_app_adds_itself_to_the_desktop_menu(fresh_venv, tmp_path):
    data = tmp_path / "data home"
    env = _clean_env(tmp_path, XDG_DATA_HOME=str(data))
    r = subprocess.run([str(fresh_venv / "bin" / "roofgui"), "gui", "--install-desktop"],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    desktop = data / "applications" / f"{APP_ID}.desktop"
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").read_bytes() == ICON.read_bytes()
    assert (data / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    entry = _desktop_entry(desktop)
    # the menu runs this environment's own launcher, by absolute (quoted) path
    assert entry["Exec"] == f'"{fresh_venv / "bin" / "roofgui-gui"}" %f'
    assert entry["TryExec"] == str(fresh_venv / "bin" / "roofgui-gui")
    _validate_desktop(desktop)
    r = subprocess.run([str(fresh_venv / "bin" / "roofgui"), "gui", "--uninstall-desktop"],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=120)
    assert r.returncode == 0 and not desktop.exists()


# -- desktop entry, metainfo, icon ---------------------------------------------------------
def _desktop_entry(path: Path) -> dict[str, str]:
    cfg = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    cfg.optionxform = str
    cfg.read(path, encoding="utf-8")
    return dict(cfg["Desktop Entry"])


def _validate_desktop(path: Path) -> None:
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate is not installed (apt install desktop-file-utils; "
                    "scripts/setup.sh does)")
    r = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "error" not in r.stdout.lower(), r.stdout + r.stderr


def test_desktop_file_passes_desktop_file_validate():
    _validate_desktop(DESKTOP)


def test_desktop_file_keys():
    e = _desktop_entry(DESKTOP)
    assert DESKTOP.stem == APP_ID == app_mod.APP_ID  # reverse-DNS id = setDesktopFileName()
    assert e["Type"] == "Application" and e["Name"] == "Roofline Explorer"
    assert e["Icon"] == APP_ID == ICON.stem  # the hicolor icon name
    assert e["Exec"].split()[0] == "roofgui-gui" and e["Exec"].endswith("%f")
    assert e["Terminal"] == "false"
    assert e["StartupWMClass"] == app_mod.APP_NAME  # Qt's WM_CLASS is the application name


def test_metainfo_is_well_formed_with_the_required_keys():
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    text = {t: (root.findtext(t) or "").strip() for t in
            ("id", "metadata_license", "project_license", "name", "summary")}
    assert text["id"] == APP_ID
    assert text["metadata_license"] in ("CC0-1.0", "FSFAP", "MIT", "CC-BY-4.0")
    assert text["project_license"] == "MIT"
    assert text["name"] == "Roofline Explorer" and text["summary"]
    desc = root.find("description")
    assert desc is not None and len("".join(desc.itertext()).split()) > 20
    launch = root.find("launchable")
    assert launch is not None and launch.get("type") == "desktop-id" and launch.text == DESKTOP.name
    binaries = {b.text for b in root.iter("binary")}
    assert {"roofgui", "roofgui-gui"} <= binaries
    assert root.find("content_rating") is not None
    releases = [r.get("version") for r in root.iter("release")]
    assert releases and releases[0] == roofgui.__version__, "add a <release> for the new version"


def test_metainfo_passes_appstreamcli_validate():
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli is not installed (apt install appstream)")
    r = subprocess.run([tool, "validate", "--no-net", str(METAINFO)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def test_icon_is_a_self_contained_square_svg():
    root = ET.parse(ICON).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    x0, y0, w, h = (float(v) for v in root.get("viewBox").split())
    assert w == h > 0
    raw = ICON.read_text(encoding="utf-8")
    assert "<image" not in raw and not re.search(r"href=\"(https?:|file:|/)", raw)  # no external refs


def test_install_desktop_entry_quotes_paths_and_uninstalls(tmp_path):
    exe = tmp_path / "my apps" / "roofgui-gui"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    paths = app_mod.install_desktop_entry(tmp_path / "share", [str(exe)])
    e = _desktop_entry(paths["desktop"])
    assert e["Exec"] == f'"{exe}" %f' and e["TryExec"] == str(exe)
    assert e["Icon"] == APP_ID and paths["icon"].read_bytes() == ICON.read_bytes()
    assert not (paths["icon"].parents[2] / "icon-theme.cache").exists()  # never create a cache
    _validate_desktop(paths["desktop"])
    assert set(app_mod.uninstall_desktop_entry(tmp_path / "share")) == set(paths.values())
    assert not any(p.exists() for p in paths.values())


@pytest.mark.parametrize("arg, quoted", [
    ("/usr/bin/roofgui-gui", "/usr/bin/roofgui-gui"),
    ("/home/a b/roofgui", '"/home/a b/roofgui"'),
    ('/x"y', '"/x\\\\"y"'),
    ("/opt/$HOME", '"/opt/\\\\$HOME"'),
    ("/opt/50%", '"/opt/50%%"'),
])
def test_desktop_exec_quoting(arg, quoted):
    assert app_mod.desktop_exec_arg(arg) == quoted


# -- the PyInstaller recipe --------------------------------------------------------------------
def _bundle_config():
    spec = importlib.util.spec_from_file_location("bundle_config", ROOT / "packaging" / "bundle_config.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bundle_leaves_out_no_qt_module_the_app_loads(tmp_path):
    """Import everything the app and its exports load; none of it may be excluded."""
    code = ("import sys, pkgutil, importlib, roofgui\n"
            "for m in pkgutil.walk_packages(roofgui.__path__, 'roofgui.'):\n"
            "    if not m.name.endswith('__main__'):\n"
            "        importlib.import_module(m.name)\n"
            "import pyqtgraph, pyqtgraph.exporters\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('PySide6.Qt'))))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"},
                       cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    loaded = set(r.stdout.split())
    assert {"PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets"} <= loaded
    optional = {"PySide6.QtTest"}  # pyqtgraph tries it and carries on without it
    cfg = _bundle_config()
    wrongly_excluded = (loaded - optional) & set(cfg.QT_EXCLUDES)
    assert not wrongly_excluded, f"packaging/bundle_config.py excludes {wrongly_excluded}, which the app loads"
    assert len(cfg.QT_EXCLUDES) > 20  # ... and it does leave the rest out


def test_packaging_scripts_are_executable_and_parse():
    for name in ("build.sh", "smoke_test.sh"):
        p = ROOT / "packaging" / name
        assert os.access(p, os.X_OK), f"chmod +x {p}"
        r = subprocess.run(["bash", "-n", str(p)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    compile((ROOT / "packaging" / "roofgui.spec").read_text(), "roofgui.spec", "exec")


@pytest.mark.skipif(os.environ.get("ROOFGUI_TEST_BUNDLE") != "1",
                    reason="builds the PyInstaller bundle (1-4 min): set ROOFGUI_TEST_BUNDLE=1 to run it")
def test_bundle_builds_and_passes_its_smoke_test():
    r = subprocess.run(["bash", str(ROOT / "packaging" / "build.sh")], capture_output=True, text=True,
                       timeout=900, cwd=str(ROOT))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    r = subprocess.run(["bash", str(ROOT / "packaging" / "smoke_test.sh")], capture_output=True, text=True,
                       timeout=600, cwd=str(ROOT))
    assert r.returncode == 0 and "smoke: OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
