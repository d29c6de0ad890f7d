"""A cache of parsed TOML files, so that start-up does not run the TOML parser.

:mod:`tomllib` is pure Python: the shipped chip files take it ~40 ms to read, about
as much as the rest of loading the catalog; the same tables read back from JSON
(parsed in C) take ~1 ms.  An entry is keyed by the SHA-256 of the file's bytes,
so it can never be stale: a changed file misses and is parsed again.

Only what JSON holds exactly is cached (tables, arrays, strings, integers, floats,
booleans); a file with a date, say, is parsed every time.  The cache holds parsed
TOML, never validated chips: every file is still validated as it is read and
reports the same problems, and a file that is not valid TOML is never cached.

It is best effort: a missing, unreadable or corrupt cache file is ignored (and
rewritten), one that cannot be written is left alone.  Two files are read: the
one shipped beside the chip files (see :func:`roofgui.model.catalog.write_shipped_cache`;
read-only, it makes the very first launch fast too) and the user's own (the user's
chip files, or shipped files newer than the shipped cache).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

from roofgui.model.paths import atomic_write

#: Bump when the layout of the cache file changes.
CACHE_FORMAT = 1
#: The parser the tables came from (another version's tomllib may read a file differently).
PARSER = f"tomllib/{sys.version_info[0]}.{sys.version_info[1]}"
#: A cache file larger than this is not read (it holds a few dozen small tables).
MAX_CACHE_BYTES = 16 * 1024 * 1024


def _sha256_factory() -> Callable[[bytes], Any]:
    # The built-in module, as random.py does: importing hashlib loads OpenSSL first (~5 ms).
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef]  # 3.11
        except ImportError:
            from hashlib import sha256  # type: ignore[no-redef]
    return sha256


_sha256 = _sha256_factory()


def content_key(raw: bytes) -> str:
    """The cache key of a file's bytes."""
    return _sha256(raw).hexdigest()


def _read_entries(raw: bytes | None) -> dict[str, dict]:
    """The entries of a cache file's bytes; {} for anything that is not one of ours."""
    if not raw or len(raw) > MAX_CACHE_BYTES:
        return {}
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):  # (UnicodeDecodeError and JSONDecodeError included)
        return {}
    if (not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT
            or doc.get("parser") != PARSER or not isinstance(doc.get("entries"), dict)):
        return {}
    return {k: v for k, v in doc["entries"].items() if isinstance(k, str) and isinstance(v, dict)}


def _read_file(path: Path | None) -> tuple[dict[str, dict], bool]:
    """The entries of a cache file, and whether it is to be rewritten (there but not valid)."""
    if path is None:
        return {}, False
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CACHE_BYTES + 1)
    except FileNotFoundError:
        return {}, False
    except OSError:
        return {}, True
    entries = _read_entries(raw)
    return entries, not entries and raw != encode({}).encode()


def encode(entries: dict[str, dict]) -> str:
    """A cache file's text for these entries."""
    return json.dumps({"format": CACHE_FORMAT, "parser": PARSER, "entries": entries},
                      ensure_ascii=False, separators=(",", ":"), sort_keys=False)


class TomlCache:
    """Parsed TOML tables by content hash: :meth:`get` before parsing, :meth:`put` after,
    :meth:`save` once at the end (it writes only when what was used has changed)."""

    def __init__(self, path: Path | None, shipped: bytes | None = None) -> None:
        self.path = path
        self._shipped = _read_entries(shipped)
        self._own, self._rewrite = _read_file(path)
        #: what this run used, by key (what the user's cache file should hold, less the shipped)
        self._used: dict[str, dict] = {}
        self.hits = 0
        self.misses = 0

    def get(self, raw: bytes) -> dict | None:
        """The parsed table of these bytes, or None (then parse them and :meth:`put` the result)."""
        key = content_key(raw)
        data = self._own.get(key)
        if data is None:
            data = self._shipped.get(key)
        if data is None:
            self.misses += 1
            return None
        self.hits += 1
        self._used[key] = data
        return data

    def put(self, raw: bytes, data: dict) -> None:
        """Remember what these bytes parsed to (unless JSON cannot hold it exactly)."""
        try:
            json.dumps(data)  # a date or an integer past str()'s limit: not cached
        except (TypeError, ValueError, RecursionError):
            return
        self._used[content_key(raw)] = data

    def used(self) -> dict[str, dict]:
        """Every entry this run used or added, by key."""
        return dict(self._used)

    def save(self) -> bool:
        """Write the user's cache file if it should change (new files parsed, old ones gone);
        True if it was written.  Never raises for an unwritable place."""
        if self.path is None:
            return False
        want = {k: v for k, v in self._used.items() if k not in self._shipped}
        if want.keys() == self._own.keys() and not self._rewrite:
            return False  # (same keys, same bytes: the same tables)
        try:
            atomic_write(self.path, encode(want))
        except (OSError, ValueError, TypeError):
            return False
        self._own, self._rewrite = want, False
        return True
