import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """Every test gets its own user data directory, so no test sees the developer's files."""
    monkeypatch.setenv("ROOFGUI_HOME", str(tmp_path / "roofgui-home"))
    yield


# -- long soaks run as child processes beside the rest of the suite --------------------
#
# A test module that sets ``BACKGROUND_ARGV`` (the child's command line) has its child
# started as soon as collection ends, so the soak uses the machine's second core while
# pytest works through everything else on the first; its tests are moved to the end of
# the run and read the child's result through the ``background_child`` fixture.

import subprocess  # noqa: E402
import tempfile  # noqa: E402
from dataclasses import dataclass  # noqa: E402

_BACKGROUND: dict[str, "_Child"] = {}


@dataclass
class _Child:
    proc: subprocess.Popen
    out: object
    err: object
    timeout: float


@dataclass
class ChildResult:
    returncode: int
    stdout: str
    stderr: str


def _start(argv, timeout) -> _Child:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = tempfile.TemporaryFile(mode="w+")
    err = tempfile.TemporaryFile(mode="w+")
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=err, text=True,
                            stdin=subprocess.DEVNULL)
    return _Child(proc, out, err, timeout)


def pytest_collection_modifyitems(session, config, items):
    background, rest = [], []
    for item in items:
        argv = getattr(item.module, "BACKGROUND_ARGV", None) if hasattr(item, "module") else None
        (background if argv else rest).append(item)
    items[:] = rest + background


def pytest_collection_finish(session):
    """Start the children of the background modules still selected (after -k/-m deselection)."""
    for item in session.items:
        module = getattr(item, "module", None)
        argv = getattr(module, "BACKGROUND_ARGV", None)
        if argv and module.__name__ not in _BACKGROUND:
            _BACKGROUND[module.__name__] = _start(argv, getattr(module, "BACKGROUND_TIMEOUT", 900))


def pytest_sessionfinish(session, exitstatus):
    for child in _BACKGROUND.values():
        if child.proc.poll() is None:
            child.proc.kill()


@pytest.fixture
def background_child(request) -> ChildResult:
    """The result of this module's background child (started after collection)."""
    name = request.module.__name__
    child = _BACKGROUND.get(name)
    if child is None:  # collected some other way: run it now
        child = _BACKGROUND[name] = _start(request.module.BACKGROUND_ARGV,
                                           getattr(request.module, "BACKGROUND_TIMEOUT", 900))
    try:
        child.proc.wait(timeout=child.timeout)
    except subprocess.TimeoutExpired:
        child.proc.kill()
        child.proc.wait()
    child.out.seek(0)
    child.err.seek(0)
    return ChildResult(child.proc.returncode, child.out.read(), child.err.read())
