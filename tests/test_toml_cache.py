"""The cache of parsed chip files (roofgui/model/toml_cache.py): hits, stale entries, a corrupt
or unwritable cache, and the very same error messages with and without it.

Counts parses (calls of ``tomllib.loads``), never times.
"""

import json
import sys
import tomllib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_catalog import MALFORMED, N_SHIPPED, SPECS, good, write  # noqa: E402

import roofgui.model.catalog as catalog_mod  # noqa: E402
from roofgui.model.catalog import SHIPPED_CACHE, USER_CACHE, Catalog, write_shipped_cache  # noqa: E402
from roofgui.model.paths import user_cache_dir, user_chip_dir  # noqa: E402
from roofgui.model.toml_cache import CACHE_FORMAT, PARSER, TomlCache, content_key  # noqa: E402


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """Every TOML text parsed from now on (the cache's misses)."""
    seen: list[str] = []
    real = tomllib.loads

    def counting(text, *a, **k):
        seen.append(text)
        return real(text, *a, **k)

    monkeypatch.setattr(tomllib, "loads", counting)
    return seen


def cache_file() -> Path:
    return user_cache_dir() / USER_CACHE


def same_chips(a: Catalog, b: Catalog) -> bool:
    return a.chips == b.chips and [str(e) for e in a.errors] == [str(e) for e in b.errors]


def test_the_shipped_cache_is_current(tmp_path):
    """specs/parsed-cache.json matches the shipped chip files (else: make spec-cache)."""
    fresh = write_shipped_cache(tmp_path / SHIPPED_CACHE)
    assert (SPECS / SHIPPED_CACHE).read_bytes() == fresh.read_bytes(), \
        "specs/ changed: run `make spec-cache` to refresh specs/parsed-cache.json"


def test_a_first_launch_parses_no_shipped_file_and_writes_nothing(parses):
    cat = Catalog.load()
    assert parses == []
    assert len(cat) == N_SHIPPED and cat.errors == []
    assert same_chips(cat, Catalog.load(cache=False))
    assert not cache_file().exists()  # nothing the shipped cache lacks


def test_user_chips_are_parsed_once_then_read_from_the_users_cache(parses):
    d = user_chip_dir()
    write(d, "my-accel.toml", good("my-accel"))
    first = Catalog.load()
    assert len(parses) == 1 and cache_file().is_file()
    entries = json.loads(cache_file().read_text(encoding="utf-8"))["entries"]
    assert list(entries) == [content_key((d / "my-accel.toml").read_bytes())]
    again = Catalog.load()
    assert len(parses) == 1  # a hit
    assert same_chips(first, again) and again.get("my-accel").matrix["bf16"].value == 400e12


def test_a_changed_file_is_parsed_again_and_its_old_entry_dropped(parses):
    d = user_chip_dir()
    p = write(d, "my-accel.toml", good("my-accel"))
    Catalog.load()
    old_key = content_key(p.read_bytes())
    write(d, "my-accel.toml", good("my-accel").replace("400e12", "500e12"))
    cat = Catalog.load()
    assert len(parses) == 2
    assert cat.get("my-accel").matrix["bf16"].value == 500e12
    entries = json.loads(cache_file().read_text(encoding="utf-8"))["entries"]
    assert list(entries) == [content_key(p.read_bytes())] and old_key not in entries


@pytest.mark.parametrize("junk", [b"", b"{not json", b"\xff\xfe\x00", b"[]", b'"text"',
                                  json.dumps({"format": CACHE_FORMAT + 1, "parser": PARSER,
                                              "entries": {}}).encode(),
                                  json.dumps({"format": CACHE_FORMAT, "parser": "other/9.9",
                                              "entries": {}}).encode(),
                                  json.dumps({"format": CACHE_FORMAT, "parser": PARSER,
                                              "entries": []}).encode(),
                                  b"[" * 100_000])
def test_a_corrupt_cache_is_ignored_and_rebuilt(parses, junk):
    d = user_chip_dir()
    write(d, "my-accel.toml", good("my-accel"))
    write(user_cache_dir(), USER_CACHE, junk)
    cat = Catalog.load()
    assert cat.errors == [] and "my-accel" in cat.chips and len(parses) == 1
    doc = json.loads(cache_file().read_text(encoding="utf-8"))
    assert doc["format"] == CACHE_FORMAT and len(doc["entries"]) == 1
    Catalog.load()
    assert len(parses) == 1


def test_an_entry_of_the_wrong_shape_is_ignored(parses):
    d = user_chip_dir()
    p = write(d, "my-accel.toml", good("my-accel"))
    write(user_cache_dir(), USER_CACHE, json.dumps(
        {"format": CACHE_FORMAT, "parser": PARSER, "entries": {content_key(p.read_bytes()): [1]}}))
    assert "my-accel" in Catalog.load().chips and len(parses) == 1


def test_an_unwritable_cache_dir_still_loads(parses, monkeypatch):
    home = user_cache_dir().parent
    home.mkdir(parents=True, exist_ok=True)
    user_cache_dir().write_text("a file where the cache directory should be")
    write(user_chip_dir(), "my-accel.toml", good("my-accel"))
    for _ in range(2):
        cat = Catalog.load()
        assert cat.errors == [] and "my-accel" in cat.chips
    assert len(parses) == 2  # parsed every time, and no error for it


def test_without_the_shipped_cache_the_users_cache_takes_the_shipped_files(parses, monkeypatch):
    monkeypatch.setattr(catalog_mod, "shipped_cache_bytes", lambda: None)
    first = Catalog.load(user_dir=False)
    assert len(parses) == N_SHIPPED
    assert len(json.loads(cache_file().read_text(encoding="utf-8"))["entries"]) == N_SHIPPED
    again = Catalog.load(user_dir=False)
    assert len(parses) == N_SHIPPED and same_chips(first, again)


@pytest.mark.parametrize("case, content, key, problem", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_the_same_messages_with_and_without_the_cache(case, content, key, problem):
    d = user_chip_dir()
    write(d, "bad-chip.toml", content)
    write(d, "zzz-good.toml", good("zzz-good"))
    plain = Catalog.load(cache=False)
    miss = Catalog.load()  # (parses, fills the cache)
    hit = Catalog.load()   # (from the cache where the file was valid TOML)
    assert [str(e) for e in plain.errors] == [str(e) for e in miss.errors] == [str(e) for e in hit.errors]
    assert len(plain.errors) == 1 and same_chips(plain, hit)


def test_a_value_json_cannot_hold_is_not_cached_and_reports_the_same(parses):
    d = user_chip_dir()
    write(d, "bad-chip.toml", good("bad-chip").replace('name = "My accelerator"', "name = 1979-05-27"))
    first = Catalog.load()
    second = Catalog.load()
    assert len(parses) == 2  # (a date: parsed each time)
    assert [str(e) for e in first.errors] == [str(e) for e in second.errors]
    assert "name" in str(first.errors[0]) and "date" in str(first.errors[0])


def test_toml_cache_keeps_only_what_this_run_used(tmp_path):
    path = tmp_path / "c.json"
    c = TomlCache(path)
    c.put(b"a = 1", {"a": 1})
    c.put(b"b = 2", {"b": 2})
    assert c.save() and not c.save()  # written once, then nothing new
    c2 = TomlCache(path)
    assert c2.get(b"a = 1") == {"a": 1} and c2.hits == 1
    assert c2.get(b"a = 2") is None and c2.misses == 1
    assert c2.save()  # "b" unused this time: dropped
    assert list(json.loads(path.read_text())["entries"]) == [content_key(b"a = 1")]
