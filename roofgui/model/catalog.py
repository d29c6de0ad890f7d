"""The chip catalog: shipped specs plus the user's own chip files.

A malformed file never stops the others from loading: each problem is kept
as a :class:`SpecError` in :attr:`Catalog.errors`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterable

from roofgui.model.chip_file import chip_to_toml, load_chip_file, parse_chip_toml
from roofgui.model.chips import Chip
from roofgui.model.errors import ModelError, SpecError
from roofgui.model.paths import atomic_write, shipped_path, user_chip_dir

CATALOG_VERSION = "2026.11"


def _checkout_specs() -> Path:
    return Path(__file__).resolve().parents[2] / "specs"


def builtin_spec_files() -> list[tuple[str, bytes]]:
    """(name, bytes) of every shipped chip file, from the package or a checkout."""
    out: list[tuple[str, bytes]] = []
    here = shipped_path("specs")
    if here is not None and here.is_dir():
        out = [(p.name, p.read_bytes()) for p in here.iterdir() if p.name.endswith(".toml")]
        if out:
            return sorted(out)
    try:
        root = resources.files("roofgui") / "specs"
        if root.is_dir():
            for entry in root.iterdir():
                if entry.name.endswith(".toml"):
                    out.append((entry.name, entry.read_bytes()))
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        pass
    if not out:
        checkout = _checkout_specs()
        if checkout.is_dir():
            out = [(p.name, p.read_bytes()) for p in checkout.glob("*.toml")]
    return sorted(out)


@lru_cache(maxsize=128)
def shipped_chip(name: str, raw: bytes) -> Chip:
    """A shipped chip file parsed, once per content: every window loads the catalog, and the
    21 files cost ~55 ms to parse (a test suite opens hundreds of windows).  Keyed by the bytes
    themselves, so an edited file is parsed afresh; a Chip is frozen, so sharing it is safe."""
    return parse_chip_toml(raw, f"specs/{name}", builtin=True, expected_id=name[:-5])


@dataclass
class Catalog:
    """All chips known to the app, by id."""

    chips: dict[str, Chip] = field(default_factory=dict)
    errors: list[SpecError] = field(default_factory=list)
    user_dir: Path | None = None

    @classmethod
    def load(cls, user_dir: Path | None | bool = None) -> "Catalog":
        """Load the shipped chips and (unless ``user_dir`` is False) the user's."""
        cat = cls()
        for name, raw in builtin_spec_files():
            try:
                chip = shipped_chip(name, raw)
                cat.chips[chip.id] = chip
            except SpecError as e:
                cat.errors.append(e)
            except (ValueError, TypeError, OverflowError, RecursionError) as e:
                cat.errors.append(_unreadable(f"specs/{name}", e))
        if user_dir is not False:
            d = user_chip_dir() if user_dir in (None, True) else Path(user_dir)  # type: ignore[arg-type]
            cat.user_dir = d
            cat.load_dir(d)
        return cat

    def load_dir(self, d: Path) -> None:
        """Add the chip files of a folder; each bad entry is one error naming it, never a stop."""
        try:
            with os.scandir(d) as it:
                names = sorted(e.name for e in it if e.name.endswith(".toml"))
        except FileNotFoundError:
            return
        except OSError as e:  # unreadable or not a folder: say so rather than drop the chips silently
            self.errors.append(SpecError(str(d), None, f"cannot read the chips folder: {e.strerror or e}"))
            return
        for p in (d / n for n in names):
            try:
                chip = load_chip_file(p, builtin=False)
            except SpecError as e:
                self.errors.append(e)
                continue
            except (ValueError, TypeError, OverflowError, RecursionError) as e:
                self.errors.append(_unreadable(str(p), e))  # one bad file never stops the rest
                continue
            if chip.id in self.chips and self.chips[chip.id].builtin:
                self.errors.append(SpecError(str(p), "id", f"{chip.id!r} is a shipped chip; "
                                             "give your copy another id"))
                continue
            self.chips[chip.id] = chip

    def get(self, ref: str, base: Path | None = None) -> Chip:
        """A chip by id (case-insensitive) or by path to a TOML file (relative to ``base``,
        the folder of the scenario that names it, when given)."""
        key = ref.strip()
        if key.lower() in self.chips:
            return self.chips[key.lower()]
        if key.endswith(".toml") or "/" in key or "\\" in key:
            p = Path(key)
            if base is not None and not p.is_absolute():
                p = Path(base) / p
            shown = key if len(key) <= 80 else p.name[:60] + "…"  # (its name, cut short)
            try:
                found = p.is_file()
            except OSError as e:  # a name too long, a folder we may not search ...
                raise ModelError(f"cannot read chip file {shown}: {e.strerror or e}", "chip") from None
            if found:
                return load_chip_file(p, builtin=False)
            raise ModelError(f"no chip file at {shown}", "chip")
        close = [c for c in self.chips if key.lower().replace("_", "-") in c]
        hint = f" (did you mean {', '.join(close[:3])}?)" if close else f" (known: {', '.join(self.ids())})"
        raise ModelError(f"unknown chip {ref!r}{hint}", "chip")

    def ids(self) -> list[str]:
        return sorted(self.chips, key=_sort_key)

    def __iter__(self) -> Iterable[Chip]:
        return iter(self.chips[i] for i in self.ids())

    def __len__(self) -> int:
        return len(self.chips)

    # -- custom chips -------------------------------------------------------
    def save_custom(self, chip: Chip) -> Path:
        """Write a user chip atomically into the user chip directory."""
        if chip.id in self.chips and self.chips[chip.id].builtin:
            raise ModelError(f"{chip.id!r} is a shipped chip and read-only; choose another id", "id")
        d = self.user_dir or user_chip_dir()
        path = d / f"{chip.id}.toml"
        text = chip_to_toml(chip)
        parse_chip_toml(text, str(path))  # never write what we could not read back
        atomic_write(path, text)
        from dataclasses import replace
        self.chips[chip.id] = replace(chip, path=str(path), builtin=False)
        return path

    def delete_custom(self, chip_id: str) -> None:
        chip = self.chips.get(chip_id)
        if chip is None:
            raise ModelError(f"unknown chip {chip_id!r}", "chip")
        if chip.builtin:
            raise ModelError(f"{chip_id!r} is a shipped chip and cannot be deleted", "chip")
        if chip.path:
            Path(chip.path).unlink(missing_ok=True)
        del self.chips[chip_id]


def _unreadable(where: str, e: BaseException) -> SpecError:
    return SpecError(where, None, f"cannot be read ({type(e).__name__}: {e})")


def _sort_key(cid: str) -> tuple[int, str]:
    order = ("tpu", "h1", "h2", "b2", "gb", "a1", "l4", "v1", "mi", "gaudi", "trainium")
    for i, prefix in enumerate(order):
        if cid.startswith(prefix):
            return (i, cid)
    return (len(order), cid)
