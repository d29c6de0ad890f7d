"""Files the app reads and writes: only regular files, a size cap, never blocking on a FIFO;
saves that write through links, keep the target's mode and leave no temporary files."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from roofgui.model import paths
from roofgui.model.paths import UnreadableFile, atomic_write, read_regular_file, remove_stale_temps


def test_reads_a_regular_file(tmp_path):
    f = tmp_path / "s.json"
    f.write_bytes(b"{}\n")
    assert read_regular_file(f) == b"{}\n"
    link = tmp_path / "link.json"
    link.symlink_to(f)
    assert read_regular_file(link) == b"{}\n"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_link_to_a_device_is_refused_at_once(tmp_path):
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_regular_file(link)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    result = []
    t = threading.Thread(target=lambda: result.append(_refusal(fifo)), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "reading a FIFO blocked"
    assert result == ["not a regular file"]


def _refusal(p):
    try:
        read_regular_file(p)
    except UnreadableFile as e:
        return str(e).split(": ", 1)[1]
    return "read"


def test_a_folder_and_a_large_file_are_refused(tmp_path):
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_regular_file(tmp_path)
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 101)
    with pytest.raises(UnreadableFile, match="too large"):
        read_regular_file(big, limit=100)
    assert read_regular_file(big, limit=101) == b"x" * 101


def test_a_save_onto_a_symlink_writes_its_target(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    atomic_write(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_save_onto_a_hard_link_keeps_both_names_in_step(tmp_path):
    a = tmp_path / "a.json"
    a.write_text("old")
    b = tmp_path / "b.json"
    os.link(a, b)
    atomic_write(b, "new")
    assert a.read_text() == "new" and b.read_text() == "new"
    assert os.stat(a).st_ino == os.stat(b).st_ino


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_save_onto_a_link_to_a_device_is_refused_and_makes_nothing(tmp_path):
    link = tmp_path / "out.png"
    link.symlink_to("/dev/full")
    with pytest.raises(UnreadableFile):
        atomic_write(link, b"png")
    assert link.is_symlink() and os.readlink(link) == "/dev/full"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.png"]


def test_a_failed_save_leaves_no_temporary_file(tmp_path, monkeypatch):
    f = tmp_path / "s.json"
    f.write_text("old")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(paths.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(f, "new")
    assert f.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_stale_temporary_files_of_a_killed_save_are_removed(tmp_path):
    f = tmp_path / "s.json"
    f.write_text("{}")
    (tmp_path / ".s.json.abc123.tmp").write_text("half")
    (tmp_path / ".other.json.x.tmp").write_text("not ours")
    gone = remove_stale_temps(f)
    assert [p.name for p in gone] == [".s.json.abc123.tmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.json.x.tmp", "s.json"]


def test_a_new_file_gets_the_mode_a_plain_write_would(tmp_path):
    f = tmp_path / "sub" / "new.json"
    atomic_write(f, "x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(f.stat().st_mode) == 0o666 & ~mask
