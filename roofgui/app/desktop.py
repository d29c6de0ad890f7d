"""The app's shipped files and its entry in the desktop's application menu (Linux/BSD).

``roofgui gui --install-desktop`` writes the freedesktop.org ``.desktop`` entry,
the scalable icon and the AppStream metainfo under ``~/.local/share`` (or
``$XDG_DATA_HOME``); ``--uninstall-desktop`` removes them.  No Qt.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

from roofgui.model.paths import atomic_write, shipped_path

APP_ID = "io.github.roofgui.RooflineExplorer"
ICON_FILE = f"{APP_ID}.svg"


def resource_path(*parts: str) -> Path | None:
    """A file shipped in ``roofgui/resources`` (the checkout's ``resources/``), or None."""
    path = shipped_path("resources", *parts)
    return path if path is not None and path.is_file() else None


def icon_path() -> Path | None:
    """The scalable app icon."""
    return resource_path("icons", ICON_FILE)


def desktop_install_paths(data_home: str | Path | None = None) -> dict[str, Path]:
    """Where :func:`install_desktop_entry` puts each file."""
    if data_home is None:
        data_home = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    base = Path(data_home)
    return {"desktop": base / "applications" / f"{APP_ID}.desktop",
            "icon": base / "icons" / "hicolor" / "scalable" / "apps" / ICON_FILE,
            "metainfo": base / "metainfo" / f"{APP_ID}.metainfo.xml"}


def launcher_command() -> list[str]:
    """The command a desktop menu should run to open the window (absolute paths)."""
    if getattr(sys, "frozen", False):  # the PyInstaller bundle's own executable
        return [str(Path(sys.executable).resolve()), "gui"]
    cand = Path(sys.executable).parent / "roofgui-gui"  # pip/pipx put it beside python
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
    refresh_desktop_caches(paths)
    return paths


def uninstall_desktop_entry(data_home: str | Path | None = None) -> list[Path]:
    """Remove what :func:`install_desktop_entry` wrote; returns the files removed."""
    removed = []
    paths = desktop_install_paths(data_home)
    for p in paths.values():
        if p.exists():
            p.unlink()
            removed.append(p)
    refresh_desktop_caches(paths)
    return removed


def refresh_desktop_caches(paths: Mapping[str, Path]) -> None:
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


def desktop_command(install: bool) -> int:
    """``--install-desktop`` / ``--uninstall-desktop``: do it and say what was done."""
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
