#!/usr/bin/env bash
# Build the self-contained one-folder Linux bundle dist/roofgui/ with PyInstaller.
#   bash packaging/build.sh            # then: bash packaging/smoke_test.sh
# Uses .venv (make setup) or $PYTHON; installs PyInstaller into that environment for the
# build only (it is not a dependency of the app).
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-.venv/bin/python}
if [ ! -x "$PY" ] && ! command -v "$PY" >/dev/null 2>&1; then
  echo "build: no $PY; run 'make setup' (or bash scripts/setup.sh) first, or set PYTHON" >&2
  exit 1
fi
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
  echo "build: installing PyInstaller into $("$PY" -c 'import sys; print(sys.prefix)')"
  "$PY" -m pip install -q "pyinstaller>=6.10,<7"
fi

start=$(date +%s)
rm -rf dist/roofgui
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/roofgui.spec
# Drop debug symbols that some Python builds (pyenv) leave in libpython & co. Libraries
# repaired by auditwheel (numpy.libs/ ...) are left alone: strip breaks their patched
# ELF headers ("ELF load command address/offset not page-aligned"); PyInstaller's own
# strip=True would do exactly that, so the spec keeps it off.
if command -v strip >/dev/null 2>&1 && command -v file >/dev/null 2>&1; then
  find dist/roofgui -type f \( -name '*.so' -o -name '*.so.*' \) -not -path '*.libs/*' -print0 |
    xargs -0 file | grep 'with debug_info' | cut -d: -f1 |
    while read -r f; do strip --strip-debug "$f"; done
fi
end=$(date +%s)

version=$("$PY" -c 'import roofgui; print(roofgui.__version__)')
arch=$(uname -m)
tarball="dist/roofgui-${version}-linux-${arch}.tar.gz"
tar -C dist -czf "$tarball" roofgui
echo "build: dist/roofgui ($(du -sh dist/roofgui | cut -f1) unpacked, $(du -h "$tarball" | cut -f1) as $tarball)" \
     "built in $((end - start)) s"
echo "build: try  dist/roofgui/roofgui chips   or   bash packaging/smoke_test.sh"
