"""The validation suite: published measurements, one cited row each, read from CSV files.

Two layouts, told apart by the header (``resources/measured/README.md`` documents both):

* kernels: ``id,chip,M,N,K,dtype,milliseconds,source,file,version,row`` -- one GEMM
  ``C[M,N] = A[M,K]·B[K,N]``, its measured time in milliseconds;
* serving: ``id,chip,model,batch,tp,input,output,w_dtype,act_dtype,kv_dtype,compute_dtype,
  metric,measured,source,file,version,row`` -- an LLM served on ``tp`` tensor-parallel
  chips, ``metric`` one of :data:`METRICS`.

``source``, ``file``, ``version`` and ``row`` cite where the figure was published: the
repository (or site), the file (or page), its version or commit, and the exact row.
Every malformed row raises :class:`MeasurementError` naming the file, line and column.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from roofgui.model.measured import MeasurementError
from roofgui.model.paths import read_regular_file, shipped_path
from roofgui.model.scenario import OpSpec, ShardSpec

KERNEL_COLUMNS = ("id", "chip", "M", "N", "K", "dtype", "milliseconds",
                  "source", "file", "version", "row")
SERVING_COLUMNS = ("id", "chip", "model", "batch", "tp", "input", "output", "w_dtype",
                   "act_dtype", "kv_dtype", "compute_dtype", "metric", "measured",
                   "source", "file", "version", "row")
CITATION = ("source", "file", "version", "row")
#: Serving metrics: (quantity, unit, per chip?) -- output tokens/s of the whole TP group or
#: of one GPU, and the first-token latency in milliseconds.
METRICS = {"out_tok_s": ("throughput", "out tok/s", False),
           "out_tok_s_per_gpu": ("throughput", "out tok/s/GPU", True),
           "ttft_ms": ("time", "ms", False)}
#: Data files larger than this are refused.
MAX_SUITE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class SuiteRow:
    """One published measurement and what the analytic model needs to bound it."""

    id: str
    chip: str
    #: a short description: the op and dims, or the model and serving setup
    what: str
    #: "time" (lower is better; bounded below) or "throughput" (bounded above)
    quantity: str
    unit: str
    #: in ``unit``
    measured: float
    #: the op to evaluate: a matmul, or an LLM step (kind "llm")
    op: OpSpec
    #: "kernel" or one of :data:`METRICS`
    metric: str
    source: str
    file: str
    version: str
    row: str
    #: where the row was read (file:line)
    where: str = ""

    @property
    def citation(self) -> str:
        return f"{self.source}, {self.file} ({self.version}): {self.row}"

    @property
    def workload(self) -> str:
        """"kernel", "throughput" (serving) or "latency" (serving: time to first token)."""
        if self.metric == "kernel":
            return "kernel"
        return "throughput" if self.quantity == "throughput" else "latency"

    @property
    def dtype(self) -> str:
        return self.op.dtypes.get("compute", "")


def shipped_suite_files() -> list[Path]:
    """The suite shipped in ``resources/measured/`` (every ``*.csv``, sorted)."""
    d = shipped_path("resources", "measured")
    return sorted(d.glob("*.csv")) if d is not None else []


def load_suite(paths: Sequence[str | Path] | None = None) -> list[SuiteRow]:
    """Read the suite's rows (the shipped files when ``paths`` is None).

    Raises
    ------
    MeasurementError
        If a file cannot be read, its header is neither layout, or a row is malformed.
    """
    rows: list[SuiteRow] = []
    for p in (shipped_suite_files() if paths is None else paths):
        rows.extend(load_file(p))
    seen: dict[str, str] = {}
    for r in rows:
        if r.id in seen:
            raise MeasurementError(r.where, 1, 1, f"row id {r.id!r} already used at {seen[r.id]}")
        seen[r.id] = r.where
    return rows


def load_file(path: str | Path) -> list[SuiteRow]:
    where = str(path)
    try:
        text = read_regular_file(path, MAX_SUITE_BYTES).decode("utf-8-sig")
    except OSError as e:
        raise MeasurementError(where, 1, 1, f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise MeasurementError(where, 1, 1, "not a text file (not valid UTF-8)") from None
    table = list(csv.reader(io.StringIO(text)))
    if not table:
        raise MeasurementError(where, 1, 1, "empty file")
    header = tuple(c.strip() for c in table[0])
    if header == KERNEL_COLUMNS:
        build = _kernel_row
    elif header == SERVING_COLUMNS:
        build = _serving_row
    else:
        raise MeasurementError(where, 1, 1, "unknown header: expected "
                               f"{','.join(KERNEL_COLUMNS)} or {','.join(SERVING_COLUMNS)}")
    out = []
    for line, cells in enumerate(table[1:], 2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            raise MeasurementError(where, line, min(len(cells), len(header)) + 1,
                                   f"{len(cells)} fields; the header has {len(header)}")
        out.append(build(_Cells(dict(zip(header, (c.strip() for c in cells))), header,
                                where, line)))
    return out


@dataclass(frozen=True)
class _Cells:
    values: dict[str, str]
    header: tuple[str, ...]
    where: str
    line: int

    def fail(self, key: str, problem: str):
        raise MeasurementError(self.where, self.line, self.header.index(key) + 1,
                               f"{key}: {problem}")

    def text(self, key: str) -> str:
        v = self.values[key]
        if not v:
            self.fail(key, "is empty")
        return v

    def number(self, key: str) -> float:
        v = self.text(key)
        try:
            x = float(v)
        except ValueError:
            self.fail(key, f"{v!r} is not a number")
        if not (x > 0 and math.isfinite(x)):
            self.fail(key, f"must be a positive number (got {v})")
        return x

    def whole(self, key: str) -> int:
        x = self.number(key)
        if not x.is_integer():
            self.fail(key, f"must be a whole number (got {self.values[key]})")
        return int(x)

    def common(self) -> dict:
        return {"id": self.text("id"), "chip": self.text("chip"),
                **{k: self.text(k) for k in CITATION}, "where": f"{self.where}:{self.line}"}


def _kernel_row(c: _Cells) -> SuiteRow:
    m, n, k = (c.whole(x) for x in ("M", "N", "K"))
    dt = c.text("dtype")
    op = OpSpec(f"gemm {m}x{n}x{k}", "matmul", {"B": m, "D": k, "F": n},
                {"x": dt, "w": dt, "out": dt, "compute": dt})
    return SuiteRow(what=f"{dt} GEMM M={m} N={n} K={k}", quantity="time", unit="ms",
                    measured=c.number("milliseconds"), op=op, metric="kernel", **c.common())


def _serving_row(c: _Cells) -> SuiteRow:
    metric = c.text("metric")
    if metric not in METRICS:
        c.fail("metric", f"unknown metric {metric!r} (known: {', '.join(METRICS)})")
    quantity, unit, _ = METRICS[metric]
    model = c.text("model")
    b, tp, p, d = (c.whole(x) for x in ("batch", "tp", "input", "output"))
    dts = {role: c.text(f"{name}_dtype") for role, name in
           (("w", "w"), ("x", "act"), ("kv", "kv"), ("compute", "compute"))}
    op = OpSpec(c.values["id"], "llm", {"B": b, "p": p, "d": d}, dts,
                ShardSpec("tp", tp, "scale-up") if tp > 1 else None,
                # a true bound: the ring all-reduce's link bytes, the KV cache actually read
                {"model": model, "t_mem": "refined", "t_net": "ring"})
    what = (f"{model} {'TTFT' if quantity == 'time' else 'throughput'} batch {b} TP {tp} "
            f"in {p} out {d}, w/kv {dts['w']}/{dts['kv']}")
    return SuiteRow(what=what, quantity=quantity, unit=unit, measured=c.number("measured"),
                    op=op, metric=metric, **c.common())
