import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Write Python's bytecode caches (the gitignored __pycache__/) even where PYTHONDONTWRITEBYTECODE
# is set: without them every xdist worker rewrites and compiles the test modules again (8 of
# its 12 s of collection) and every child process (the command-line, export, packaging and
# soak tests start dozens) compiles roofgui again (~1 s CPU each).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402

from roofgui.app import without_fill_threads  # noqa: E402

without_fill_threads()  # (the Qt setting the app's window paints with)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """Every test gets its own user data directory, so no test sees the developer's files."""
    monkeypatch.setenv("ROOFGUI_HOME", str(tmp_path / "roofgui-home"))
    yield


# -- long soaks run as child processes --------------------------------------------------
#
# A test module that sets ``CHILD_ARGV`` (a command line) runs that child through the
# ``child_result`` fixture: a fresh process, so a crash in Qt's C++ (what a soak looks for)
# is a failed test, not a dead test run.  Those tests go first: under ``pytest -n`` (``make
# test``) a worker waits on its child while the child uses one core and the other workers
# the rest, instead of the longest test starting last.

import subprocess  # noqa: E402
from dataclasses import dataclass  # noqa: E402


@dataclass
class ChildResult:
    returncode: int
    stdout: str
    stderr: str


def pytest_collection_modifyitems(session, config, items):
    def has_child(item) -> bool:
        return bool(getattr(getattr(item, "module", None), "CHILD_ARGV", None))

    items[:] = [i for i in items if has_child(i)] + [i for i in items if not has_child(i)]


@pytest.fixture
def child_result(request) -> ChildResult:
    """Run this module's ``CHILD_ARGV`` (within ``CHILD_TIMEOUT`` seconds) and give its result."""
    module = request.module
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        r = subprocess.run(module.CHILD_ARGV, cwd=ROOT, env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=getattr(module, "CHILD_TIMEOUT", 900))
    except subprocess.TimeoutExpired as e:
        return ChildResult(-9, _text(e.stdout), _text(e.stderr) + "\n(timed out)")
    return ChildResult(r.returncode, r.stdout, r.stderr)


def _text(out) -> str:
    return out.decode(errors="replace") if isinstance(out, bytes) else (out or "")
