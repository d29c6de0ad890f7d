#!/usr/bin/env bash
# Smoke-test the built bundle (bash packaging/build.sh first):
#   bash packaging/smoke_test.sh [path/to/dist/roofgui/roofgui]
# Runs everything from a scratch directory with a scratch home and no display, so it
# exercises only what is inside the bundle: the command line (chips, analyze, export to
# PNG/SVG/PDF/CSV), the window started headless (offscreen) until its event loop runs,
# the no-display message, and that every bundled library resolves.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
B=$(realpath "${1:-$here/dist/roofgui/roofgui}")
[ -x "$B" ] || { echo "smoke: no bundle at $B (run: bash packaging/build.sh)" >&2; exit 1; }
BUNDLE=$(dirname "$B")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
unset PYTHONPATH PYTHONHOME DISPLAY WAYLAND_DISPLAY QT_QPA_PLATFORM QT_PLUGIN_PATH
export ROOFGUI_HOME="$tmp/home" XDG_RUNTIME_DIR="$tmp" LC_ALL=C.UTF-8
T="timeout 120"
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
step() { echo "smoke: $*"; }

step "version";   $T "$B" --version | grep -q '^roofgui ' || fail "--version"
step "chips"
$T "$B" chips > chips.txt || fail "chips exited $?"
for id in tpu-v5e h100-sxm mi300x; do grep -q "^$id " chips.txt || fail "chips: $id missing"; done
step "analyze (flags)"
$T "$B" analyze --chip tpu-v5e --chip h100-sxm --op matmul --dims B=256,D=8192,F=8192 > analyze.txt \
  || fail "analyze exited $?"
grep -q "T_lower" analyze.txt && grep -q "Bound" analyze.txt || fail "analyze output"
$T "$B" analyze --chip tpu-v5e --op matmul --dims B=16k,D=16k,F=16k --shard D=2 --link ici --json > a.json \
  || fail "analyze --json exited $?"
grep -q '"t_lower"' a.json || fail "analyze --json output"
example=$(ls "$BUNDLE"/_internal/roofgui/resources/examples/*.json 2>/dev/null | head -n1 || true)
if [ -n "$example" ]; then
  step "analyze (shipped example $(basename "$example"))"
  $T "$B" analyze "$example" > ex.txt || fail "analyze $example exited $?"
fi

step "export png/svg/pdf/csv"
cat > scenario.json <<'JSON'
{"format": "roofgui-scenario", "version": 1, "title": "smoke",
 "ops": [{"name": "matmul", "kind": "matmul", "dims": {"B": 256, "D": 8192, "F": 8192},
          "dtypes": {"x": "bf16", "w": "bf16", "out": "bf16", "compute": "bf16"}}],
 "chips": ["tpu-v5e", "h100-sxm"]}
JSON
$T "$B" export scenario.json -o plot.png --caption || fail "export png exited $?"
$T "$B" export scenario.json -o plot.svg || fail "export svg exited $?"
$T "$B" export scenario.json -o plot.pdf || fail "export pdf exited $?"
$T "$B" export scenario.json -o table.csv || fail "export csv exited $?"
[ "$(head -c 8 plot.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "plot.png is not a PNG"
[ "$(stat -c %s plot.png)" -gt 10000 ] || fail "plot.png is suspiciously small"
grep -q "<svg" plot.svg || fail "plot.svg is not SVG"
[ "$(head -c 5 plot.pdf)" = "%PDF-" ] || fail "plot.pdf is not a PDF"
grep -q "tpu-v5e\|TPU v5e" table.csv || fail "table.csv has no tpu-v5e row"

step "no display: one message, exit 3"
set +e
$T "$B" > nodisp.out 2> nodisp.err; rc=$?
set -e
[ "$rc" = 3 ] || fail "no-display exit status $rc (want 3): $(cat nodisp.err)"
grep -q "roofgui export" nodisp.err || fail "no-display message: $(cat nodisp.err)"

step "window, headless (offscreen)"
QT_QPA_PLATFORM=offscreen $T "$B" gui --smoke-test > gui.txt 2> gui.err || fail "window: $(cat gui.txt gui.err)"
grep -q "smoke test ok" gui.txt || fail "window: $(cat gui.txt gui.err)"

step "desktop entry install (into a scratch XDG_DATA_HOME)"
XDG_DATA_HOME="$tmp/data" $T "$B" gui --install-desktop > desk.txt || fail "--install-desktop: $(cat desk.txt)"
entry="$tmp/data/applications/io.github.roofgui.RooflineExplorer.desktop"
grep -qF "Exec=$B gui %f" "$entry" || grep -qF "Exec=\"$B\" gui %f" "$entry" || fail "desktop Exec: $(grep Exec "$entry")"
[ -f "$tmp/data/icons/hicolor/scalable/apps/io.github.roofgui.RooflineExplorer.svg" ] || fail "icon not installed"
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "$entry" || fail "desktop-file-validate"
fi

step "every bundled library resolves"
# libwayland-* and the GL/EGL stack are deliberately the system's (PyInstaller's policy:
# they must match the compositor and the graphics driver), so they may be absent here.
unresolved=$(find "$BUNDLE" -type f \( -name '*.so' -o -name '*.so.*' \) -print0 |
  LD_LIBRARY_PATH="$BUNDLE/_internal" xargs -0 -n 20 ldd 2>/dev/null | grep "not found" |
  grep -v -E "libwayland-(client|cursor|egl|server)\.so|lib(E?GL|GLX|OpenGL|GLdispatch)\.so" | sort -u || true)
[ -z "$unresolved" ] || fail "unresolved libraries: $unresolved"

step "unused Qt modules are not in the bundle"
for m in QtNetwork QtQml QtQuick QtPdf QtWebEngineCore QtDBus QtTest; do
  ! ls "$BUNDLE"/_internal/PySide6/$m.* >/dev/null 2>&1 || fail "PySide6.$m is in the bundle"
done
step "OK ($(du -sh "$BUNDLE" | cut -f1))"
