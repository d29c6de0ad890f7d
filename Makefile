# `make run` opens the app, `make test` runs every test; both set up everything first.
# `make soak` (not part of `make test`): SOAK_EDITS edits to a busy window, memory reported,
# then the heap test (heavy actions leave nothing behind).
.PHONY: run test setup bench soak screenshot wheel bundle clean

SOAK_EDITS ?= 3000

setup:
	@bash scripts/setup.sh

run: setup
	.venv/bin/python main.py

test: setup
	QT_QPA_PLATFORM=offscreen .venv/bin/python -m pytest -q -n auto --dist worksteal --durations=15

bench: setup
	QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench.py

soak: setup
	QT_QPA_PLATFORM=offscreen .venv/bin/python tests/soak.py --edits $(SOAK_EDITS)
	QT_QPA_PLATFORM=offscreen ROOFGUI_TEST_HEAP=1 .venv/bin/python -m pytest -q tests/gui/test_heap.py

screenshot: setup
	xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot.py
	xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_levels.py
	xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_llm.py
	xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python scripts/screenshot_measured.py

wheel: setup
	.venv/bin/python -m pip wheel --no-deps -w dist .

bundle: setup
	bash packaging/build.sh
	bash packaging/smoke_test.sh

clean:
	rm -rf .venv build dist *.egg-info
