"""Per-user directories, following each platform's convention (no Qt needed)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Iterable

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


#: The largest file the app reads as a document, a chip or settings (far above any real one).
MAX_READ_BYTES = 16 * 1024 * 1024


class UnreadableFile(OSError):
    """A path that is not a regular file the app can read (a device, a FIFO, a folder, too large)."""


def read_regular_file(path: str | Path, limit: int = MAX_READ_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Checked after opening (``fstat`` on the open descriptor), so a symlink to ``/dev/zero``
    or a FIFO is refused at once instead of read until memory runs out or waited on for
    ever; a file that grows past ``limit`` while read is refused too."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile(f"{path}: not a regular file")
        if st.st_size > limit:
            raise UnreadableFile(f"{path}: too large ({st.st_size:,} bytes; at most {limit:,})")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise UnreadableFile(f"{path}: too large (over {limit:,} bytes)")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temp_prefix(name: str) -> str:
    return f".{name}."


def remove_stale_temps(path: str | Path) -> list[Path]:
    """Delete the temporary files a killed save of ``path`` left beside it; returns them."""
    p = Path(path)
    gone = []
    try:
        entries = list(p.parent.glob(_temp_prefix(p.name) + "*.tmp"))
    except OSError:
        return gone
    for entry in entries:
        try:
            if entry.is_file() and not entry.is_symlink():
                entry.unlink()
                gone.append(entry)
        except OSError:
            pass
    return gone


def save_target(path: str | Path) -> Path:
    """Where a save of ``path`` writes: through symlinks to their final target (as editors do)."""
    p = Path(path)
    return Path(os.path.realpath(p)) if p.is_symlink() else p


def atomic_write(path: str | Path, data: str | bytes | Iterable[bytes]) -> None:
    """Write a file so that it is either the old or the new content, never half.

    A symlink is written through to its target, which keeps its mode and owner; a file with
    other hard links is rewritten in place so every link sees the new content.  Anything
    but a regular file (a device, a FIFO, a folder) is refused.  The new content goes to a
    temporary file beside the target first, which is removed whatever happens.  ``data``
    may be an iterable of byte chunks, written as they come (a large export in bounded memory).
    """
    p = save_target(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UnreadableFile(f"{path}: not a regular file")
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(p, raw, st)
    try:
        if st is not None and st.st_nlink > 1:
            _copy_in_place(tmp, p)
            os.unlink(tmp)
        else:
            os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_temp(p: Path, raw: bytes | Iterable[bytes], st: os.stat_result | None) -> str:
    """A temporary file beside ``p`` holding ``raw``, flushed, with ``p``'s mode and owner."""
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(p.name), suffix=".tmp", dir=str(p.parent))
    try:
        # mkstemp makes the file 0600; give it the target's mode (else 0666 less the umask)
        mode = (st.st_mode & 0o7777) if st is not None else 0o666 & ~_umask()
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        if st is not None and hasattr(os, "fchown"):
            try:
                os.fchown(fd, st.st_uid, st.st_gid)
            except OSError:
                pass  # only root may give a file away; the owner is then ours, as a plain write
        with os.fdopen(fd, "wb") as f:
            for chunk in [raw] if isinstance(raw, bytes) else raw:
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return tmp


def _copy_in_place(src: str, dst: Path) -> None:
    import shutil

    with open(src, "rb") as f, open(dst, "r+b") as g:
        shutil.copyfileobj(f, g)
        g.truncate()
        g.flush()
        os.fsync(g.fileno())
