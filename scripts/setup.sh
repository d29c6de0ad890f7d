#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian/Ubuntu machine with Python 3.11+:
# the system libraries Qt needs, then a virtual environment with the app and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
# Shared libraries the Qt platform plugins (offscreen, xcb) load, and Xvfb for screenshots.
DEB_PKGS="libegl1 libgl1 libglib2.0-0 libfontconfig1 libfreetype6 libxkbcommon0 libxkbcommon-x11-0 \
libdbus-1-3 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0 \
libxcb-render-util0 libxcb-image0 libxcb-xkb1 libx11-xcb1 fonts-dejavu-core xvfb xauth desktop-file-utils appstream"

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $DEB_PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else SUDO=none; fi
  if [ "$SUDO" != none ]; then
    echo "setup: installing system packages:$missing"
    $SUDO apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null \
      || echo "setup: warning: could not install some system packages:$missing" >&2
  else
    echo "setup: warning: missing system packages (install them as root):$missing" >&2
  fi
fi

stamp=.venv/.roofgui-setup
want=$(cat pyproject.toml | sha1sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e ".[test]"
  echo "$want" > "$stamp"
fi
