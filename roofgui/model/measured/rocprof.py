"""rocprof-compute (formerly Omniperf) workload CSVs: ``pmc_perf.csv`` and ``roofline.csv``.

``pmc_perf.csv`` has one row per dispatch.  The figures are worked out as
rocprof-compute's own empirical roofline does (``src/utils/roofline_calc.py``,
``calc_ai``), per dispatch:

* time: ``End_Timestamp - Start_Timestamp`` (nanoseconds);
* FLOPs: ``64 * (ADD + MUL + 2*FMA + TRANS)`` of ``SQ_INSTS_VALU_<op>_{F16,F32,F64}``
  (64 lanes a wavefront) plus ``512 * SQ_INSTS_VALU_MFMA_MOPS_{F16,BF16,F32,F64}``;
* HBM bytes: ``32*RDREQ_32B + 64*(RDREQ - RDREQ_32B) + 64*WRREQ_64B + 32*(WRREQ - WRREQ_64B)``
  of ``TCC_EA_<x>_sum`` (``TCC_EA0_<x>_sum`` on MI300);
* L2 bytes: ``64 * TCP_TCC_{READ,WRITE,ATOMIC_WITH_RET,ATOMIC_WITHOUT_RET}_REQ_sum``;
* L1 bytes: ``64 * TCP_TOTAL_CACHE_ACCESSES_sum``.

A counter group a file lacks leaves that figure unknown.  ``roofline.csv`` holds no kernels:
its measured peaks (GB/s and GFLOP/s, one row per device) become the set's ``ceilings``
(the median over devices, in B/s and FLOP/s).
"""

from __future__ import annotations

import statistics

from roofgui.model.measured.record import ROCPROF, Kernel, Launch, MeasurementError, group_launches
from roofgui.model.measured.table import (Row, cell_number, decimal_comma, header_index,
                                          require_columns)

PMC_COLUMNS = ("Kernel_Name", "Start_Timestamp", "End_Timestamp")
VALU_PRECISIONS = {"F16": "fp16", "F32": "fp32", "F64": None}
VALU_OPS = {"ADD": 1.0, "MUL": 1.0, "FMA": 2.0, "TRANS": 1.0}
MFMA = {"F16": "fp16", "BF16": "bf16", "F32": "fp32", "F64": None}
L2_REQUESTS = ("TCP_TCC_READ_REQ_sum", "TCP_TCC_WRITE_REQ_sum",
               "TCP_TCC_ATOMIC_WITH_RET_REQ_sum", "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum")
L1_ACCESSES = "TCP_TOTAL_CACHE_ACCESSES_sum"
#: roofline.csv columns (GB/s or GFLOP/s) and the ceiling names they become.
CEILINGS = {"HBMBw": "hbm_bandwidth", "L2Bw": "l2_bandwidth", "L1Bw": "l1_bandwidth",
            "LDSBw": "lds_bandwidth", "FP32Flops": "fp32", "FP64Flops": "fp64",
            "MFMABF16Flops": "bf16", "MFMAF16Flops": "fp16", "MFMAF32Flops": "fp32_matrix",
            "MFMAF64Flops": "fp64_matrix", "MFMAI8Ops": "int8"}


def is_pmc_perf(cells: tuple[str, ...]) -> bool:
    """A dispatch table (then every column of :data:`PMC_COLUMNS` is required)."""
    return "Kernel_Name" in cells and ("Dispatch_ID" in cells or "Start_Timestamp" in cells
                                       or "End_Timestamp" in cells)


def is_roofline(cells: tuple[str, ...]) -> bool:
    return bool(cells) and cells[0] == "device" and "HBMBw" in cells


class _Reader:
    """Numbers of one dispatch row, by column name (None where the column is absent)."""

    def __init__(self, ix: dict[str, int], row: Row, comma: bool, path: str) -> None:
        self.ix, self.row, self.comma, self.path = ix, row, comma, path

    def get(self, name: str) -> float | None:
        col = self.ix.get(name)
        if col is None:
            return None
        return cell_number(self.row, col, self.comma, self.path, name)

    def all(self, names) -> list[float] | None:
        values = [self.get(n) for n in names]
        return None if any(v is None for v in values) else values  # type: ignore[return-value]


def parse_pmc_perf(rows: list[Row], path: str) -> tuple[Kernel, ...]:
    header = rows[0]
    ix = header_index(header, path)
    require_columns(ix, PMC_COLUMNS, header, path, "rocprof-compute pmc_perf.csv")
    if len(rows) < 2:
        raise MeasurementError(path, header.line, 1, "pmc_perf.csv: no dispatch rows after the header")
    comma = decimal_comma(c for r in rows[1:] for c in r.cells)
    launches = []
    for row in rows[1:]:
        if len(row.cells) != len(header.cells):
            raise MeasurementError(path, row.line, min(len(row.cells), len(header.cells)) + 1,
                                   f"pmc_perf.csv: row has {len(row.cells)} fields, "
                                   f"the header {len(header.cells)}")
        launches.append(_dispatch(_Reader(ix, row, comma, path)))
    return group_launches(launches, ROCPROF, None, path)


def _dispatch(r: _Reader) -> Launch:
    name = r.row.cells[r.ix["Kernel_Name"]]
    start, end = r.get("Start_Timestamp"), r.get("End_Timestamp")
    if start is None or end is None:
        col = r.ix["Start_Timestamp" if start is None else "End_Timestamp"]
        raise MeasurementError(r.path, r.row.line, col + 1, f"{name}: timestamp is empty")
    flops, by_dtype, matrix = 0.0, {}, 0.0
    seen = False
    for p, dtype in VALU_PRECISIONS.items():
        counts = r.all([f"SQ_INSTS_VALU_{op}_{p}" for op in VALU_OPS])
        if counts is not None:
            v = 64.0 * sum(w * c for w, c in zip(VALU_OPS.values(), counts))
            flops, seen = flops + v, True
            by_dtype[dtype] = by_dtype.get(dtype, 0.0) + v
    for p, dtype in MFMA.items():
        mops = r.get(f"SQ_INSTS_VALU_MFMA_MOPS_{p}")
        if mops is not None:
            flops, matrix, seen = flops + 512.0 * mops, matrix + 512.0 * mops, True
            by_dtype[dtype] = by_dtype.get(dtype, 0.0) + 512.0 * mops
    dtype = max(by_dtype, key=lambda k: by_dtype[k]) if flops > 0 else None
    unit = None if flops <= 0 else ("matrix" if matrix > flops - matrix else "vector")
    l2 = r.all(L2_REQUESTS)
    l1 = r.get(L1_ACCESSES)
    return Launch(key=(name,), name=name, seconds=(end - start) * 1e-9,
                  flops=flops if seen else None, hbm_bytes=_hbm(r),
                  l2_bytes=None if l2 is None else 64.0 * sum(l2),
                  l1_bytes=None if l1 is None else 64.0 * l1, dtype=dtype, unit=unit,
                  line=r.row.line, column=r.ix["End_Timestamp"] + 1)


def _hbm(r: _Reader) -> float | None:
    for ea in ("TCC_EA_", "TCC_EA0_"):
        v = r.all([f"{ea}{x}_sum" for x in ("RDREQ", "RDREQ_32B", "WRREQ", "WRREQ_64B")])
        if v is not None:
            rd, rd32, wr, wr64 = v
            return 32.0 * rd32 + 64.0 * (rd - rd32) + 64.0 * wr64 + 32.0 * (wr - wr64)
    return None


def parse_roofline(rows: list[Row], path: str) -> dict[str, float]:
    """The measured ceilings of a roofline.csv (B/s and FLOP/s; median over devices)."""
    header = rows[0]
    ix = header_index(header, path)
    require_columns(ix, ("HBMBw",), header, path, "rocprof-compute roofline.csv")
    if len(rows) < 2:
        raise MeasurementError(path, header.line, 1, "roofline.csv: no device rows after the header")
    comma = decimal_comma(c for r in rows[1:] for c in r.cells)
    out: dict[str, float] = {}
    for column, name in CEILINGS.items():
        if column not in ix:
            continue
        values = [cell_number(r, ix[column], comma, path, column) for r in rows[1:]]
        known = [v for v in values if v is not None]
        if known:
            out[name] = float(statistics.median(known)) * 1e9
    return out
