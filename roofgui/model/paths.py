"""Per-user directories, following each platform's convention (no Qt needed)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP = "roofgui"


def shipped_path(*parts: str) -> Path | None:
    """A file or directory shipped with the app: ``roofgui/<parts>`` in an install or a bundle,
    ``<checkout>/<parts>`` in a source checkout; None if neither has it.

    A plain look-up beside the modules, tried before :mod:`importlib.resources`, whose
    readers cost ~4 ms of start-up to import and are needed only for a zipped install."""
    package = Path(__file__).resolve().parents[1]
    for base in (package, package.parent):
        p = base.joinpath(*parts)
        if p.exists():
            return p
    return None


def user_data_dir() -> Path:
    """Where user files live: ``$ROOFGUI_HOME`` if set, else the platform's data dir."""
    override = os.environ.get("ROOFGUI_HOME")
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP


def user_chip_dir() -> Path:
    """The directory of the user's own chip TOML files."""
    return user_data_dir() / "chips"


def user_cache_dir() -> Path:
    """Where files the app can always rebuild live: ``$ROOFGUI_HOME/cache`` if set, else the
    platform's cache dir (``$XDG_CACHE_HOME/roofgui``, ``~/Library/Caches/roofgui``, …)."""
    override = os.environ.get("ROOFGUI_HOME")
    if override:
        return Path(override) / "cache"
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / APP
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / APP


def user_log_dir() -> Path:
    override = os.environ.get("ROOFGUI_HOME")
    if override:
        return Path(override) / "logs"
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        return Path(base) / APP / "logs"
    return user_data_dir() / "logs"


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | Path, data: str | bytes) -> None:
    """Write a file so that it is either the old or the new content, never half.

    Writes a temporary file beside the target, flushes and fsyncs it, then
    renames it over the target.
    """
    import tempfile

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent))
    try:
        # mkstemp makes the file 0600; give it the mode a plain open() would
        # (the existing file's, else 0666 less the umask).
        try:
            mode = os.stat(p).st_mode & 0o7777
        except OSError:
            mode = 0o666 & ~_umask()
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
