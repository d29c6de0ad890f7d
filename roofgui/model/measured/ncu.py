"""Nsight Compute ``ncu --csv``: one row per metric, or one row per kernel (``--page raw``).

What is read, per launch (``sm__`` metrics, or their ``smsp__`` twins):

* time: ``gpu__time_duration.sum`` (labelled ``Duration`` in the SpeedOfLight section that
  a plain ``ncu --csv`` prints); without it, ``sm__cycles_elapsed.avg`` over
  ``sm__cycles_elapsed.avg.per_second`` (cycles over clock rate);
* HBM/DRAM bytes: ``dram__bytes.sum``, else ``dram__bytes_read.sum`` + ``dram__bytes_write.sum``;
* FLOPs: the SASS thread-instruction counts
  ``sm__sass_thread_inst_executed_op_{h,f,d}{fma,add,mul}_pred_on.sum`` (an FMA counts 2)
  plus the tensor-core math ops ``sm__ops_path_tensor_src_<types>.sum`` that Nsight
  Compute's own tensor roofline (section ``SpeedOfLight_HierarchicalTensorRooflineChart``)
  plots: these count operations already (2 per multiply-add), so they are added as they
  are.  Their ``_sparsity_on``/``_sparsity_off`` halves are skipped, and an aggregate
  (``src_fp16``) when its breakdown (``src_fp16_dst_fp32`` ...) is there too.  Tensor
  *instruction* counts (``sm__inst_executed_pipe_tensor.sum``) are not FLOPs (their
  factor depends on the architecture) and are not used;
* L2 bytes ``lts__t_bytes.sum`` and L1 bytes ``l1tex__t_bytes.sum``.

The dtype is the one that did the most FLOPs (tensor ops by source type; SASS ``h`` fp16,
``f`` fp32), the unit ``matrix`` when tensor ops did most, else ``vector``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from roofgui.model.measured.record import NCU, Kernel, Launch, MeasurementError, group_launches
from roofgui.model.measured.table import (Row, cell_number, decimal_comma, header_index,
                                          require_columns, unit_factor)

TIME = "gpu__time_duration.sum"
#: The same time as the SpeedOfLight section labels it (``ncu --csv`` with its default set)
DURATION_LABEL = "Duration"
DRAM = "dram__bytes.sum"
DRAM_READ, DRAM_WRITE = "dram__bytes_read.sum", "dram__bytes_write.sum"
L2, L1 = "lts__t_bytes.sum", "l1tex__t_bytes.sum"
DEVICE_NAME = "device__attribute_display_name"
METRIC_COLUMNS = ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value")
SASS_PRECISIONS = {"h": "fp16", "f": "fp32", "d": None}
SASS_OPS = {"fma": 2.0, "add": 1.0, "mul": 1.0}
TENSOR = re.compile(r"^sm__ops_path_tensor_src_([a-z0-9_]+)\.sum$")
TENSOR_DTYPES = {"fp16": "fp16", "bf16": "bf16", "tf32": "tf32", "fp8": "fp8_e4m3",
                 "fp4": "fp4", "int8": "int8", "int4": "int4"}
_RATE = re.compile(r"^(k|m|g)?(cycle/(n|u|m)?second|hz)$", re.I)


def sass_metric(prefix: str, precision: str, op: str) -> str:
    return f"{prefix}sass_thread_inst_executed_op_{precision}{op}_pred_on.sum"


@dataclass
class Cell:
    """Where one metric's value and unit of one launch sit."""

    row: Row
    col: int
    unit: str
    unit_line: int
    unit_col: int


@dataclass
class RawLaunch:
    key: tuple
    name: str
    row: Row
    name_col: int
    cells: dict[str, Cell] = field(default_factory=dict)


def is_metric_layout(cells: tuple[str, ...]) -> bool:
    """One row per metric (then every column of :data:`METRIC_COLUMNS` is required)."""
    return "Metric Name" in cells and "Metric Value" in cells


def is_raw_layout(cells: tuple[str, ...]) -> bool:
    return "Kernel Name" in cells and any("__" in c for c in cells)


def parse(rows: list[Row], path: str) -> tuple[tuple[Kernel, ...], str | None]:
    """The kernels of an ncu CSV (header at ``rows[0]``), and the device it names."""
    if is_metric_layout(rows[0].cells):
        launches, values, chip = _metric_layout(rows, path)
    else:
        launches, values, chip = _raw_layout(rows, path)
    if not launches:
        raise MeasurementError(path, rows[0].line, 1, "ncu: no kernel rows after the header")
    comma = decimal_comma(values)
    read = [_launch(r, comma, path) for r in launches]
    return group_launches(read, NCU, chip, path), chip


def _metric_layout(rows: list[Row], path: str):
    header = rows[0]
    ix = header_index(header, path)
    require_columns(ix, METRIC_COLUMNS, header, path, "ncu")
    name_col, metric_col = ix["Kernel Name"], ix["Metric Name"]
    unit_col, value_col = ix["Metric Unit"], ix["Metric Value"]
    id_col, pid_col = ix.get("ID"), ix.get("Process ID")
    launches: dict[tuple, RawLaunch] = {}
    values, chip, serial = [], None, 0
    for row in rows[1:]:
        if len(row.cells) <= max(ix.values()):
            raise MeasurementError(path, row.line, len(row.cells) + 1,
                                   f"ncu: row has {len(row.cells)} fields, the header {len(header.cells)}")
        name, metric = row.cells[name_col], row.cells[metric_col]
        if id_col is not None:  # ids count launches within one process
            key = (row.cells[id_col], row.cells[pid_col] if pid_col is not None else "", name)
        else:  # no launch ids: a metric seen again for this kernel starts its next launch
            key = (str(serial), "", name)
            if key in launches and metric in launches[key].cells:
                serial += 1
                key = (str(serial), "", name)
        launch = launches.setdefault(key, RawLaunch(key, name, row, name_col))
        if metric == DEVICE_NAME and chip is None:
            chip = row.cells[value_col] or None
        launch.cells[metric] = Cell(row, value_col, row.cells[unit_col], row.line, unit_col + 1)
        values.append(row.cells[value_col])
    return list(launches.values()), values, chip


def _raw_layout(rows: list[Row], path: str):
    header = rows[0]
    ix = header_index(header, path)
    name_col = ix["Kernel Name"]
    if len(rows) < 2 or rows[1].cells[name_col:name_col + 1] not in ((), ("",)):
        where = rows[1].line if len(rows) > 1 else header.line
        raise MeasurementError(path, where, name_col + 1,
                               "ncu --page raw: the row after the header must be the units row")
    units = rows[1]
    metrics = {n: i for n, i in ix.items() if "__" in n}
    launches, values, chip = [], [], None
    for row in rows[2:]:
        if len(row.cells) != len(header.cells):
            raise MeasurementError(path, row.line, min(len(row.cells), len(header.cells)) + 1,
                                   f"ncu: row has {len(row.cells)} fields, the header {len(header.cells)}")
        launch = RawLaunch((str(row.line),), row.cells[name_col], row, name_col)
        for metric, col in metrics.items():
            unit = units.cells[col] if col < len(units.cells) else ""
            launch.cells[metric] = Cell(row, col, unit, units.line, col + 1)
            values.append(row.cells[col])
        if DEVICE_NAME in metrics and chip is None:
            chip = row.cells[metrics[DEVICE_NAME]] or None
        launches.append(launch)
    return launches, values, chip


def _value(launch: RawLaunch, metric: str, kind: str, comma: bool, path: str) -> float | None:
    cell = launch.cells.get(metric)
    if cell is None:
        return None
    value = cell_number(cell.row, cell.col, comma, path, metric)
    if value is None:
        return None
    factor = _rate_factor(cell.unit) if kind == "rate" else unit_factor(cell.unit, kind)
    if factor is None:
        raise MeasurementError(path, cell.unit_line, cell.unit_col,
                               f"{metric}: unit {cell.unit!r} is not a {kind} unit")
    return value * factor


def _rate_factor(unit: str) -> float | None:
    m = _RATE.match(unit.strip())
    if not m:
        return None
    prefix = {"k": 1e3, "m": 1e6, "g": 1e9}.get((m.group(1) or "").lower(), 1.0)
    per = {"n": 1e9, "u": 1e6, "m": 1e3}.get((m.group(3) or "").lower(), 1.0)
    return prefix * per


def _seconds(launch: RawLaunch, comma: bool, path: str) -> tuple[float, Cell]:
    for metric in (TIME, DURATION_LABEL):
        t = _value(launch, metric, "time", comma, path)
        if t is not None:
            return t, launch.cells[metric]
    for p in ("sm__", "smsp__"):
        cycles = _value(launch, f"{p}cycles_elapsed.avg", "count", comma, path)
        rate = _value(launch, f"{p}cycles_elapsed.avg.per_second", "rate", comma, path)
        if cycles is not None and rate:
            return cycles / rate, launch.cells[f"{p}cycles_elapsed.avg"]
    raise MeasurementError(path, launch.row.line, launch.name_col + 1,
                           f"ncu: kernel {launch.name!r} has no {TIME} (nor cycles and clock rate)")


def _tensor_metrics(names) -> list[tuple[str, str | None]]:
    found = [n for n in names if TENSOR.match(n) and "_sparsity_" not in n]
    keep = [n for n in found if not any(o != n and o.startswith(n[:-4] + "_") for o in found)]
    return [(n, TENSOR_DTYPES.get(TENSOR.match(n).group(1).split("_")[0])) for n in keep]


def _flops(launch: RawLaunch, comma: bool, path: str):
    """(FLOPs or None, dtype, unit) of one launch."""
    by_dtype: dict[str | None, float] = {}
    seen = sass = tensor = 0.0
    for precision, dtype in SASS_PRECISIONS.items():
        for op, weight in SASS_OPS.items():
            for prefix in ("sm__", "smsp__"):
                v = _value(launch, sass_metric(prefix, precision, op), "count", comma, path)
                if v is not None:
                    seen, sass = 1.0, sass + weight * v
                    by_dtype[dtype] = by_dtype.get(dtype, 0.0) + weight * v
                    break
    for metric, dtype in _tensor_metrics(launch.cells):
        v = _value(launch, metric, "count", comma, path)
        if v is not None:
            seen, tensor = 1.0, tensor + v
            by_dtype[dtype] = by_dtype.get(dtype, 0.0) + v
    if not seen:
        return None, None, None
    total = sass + tensor
    if total <= 0:
        return 0.0, None, None
    dtype = max(by_dtype, key=lambda k: by_dtype[k])
    return total, dtype, "matrix" if tensor > sass else "vector"


def _launch(launch: RawLaunch, comma: bool, path: str) -> Launch:
    seconds, where = _seconds(launch, comma, path)
    dram = _value(launch, DRAM, "bytes", comma, path)
    if dram is None:
        read = _value(launch, DRAM_READ, "bytes", comma, path)
        write = _value(launch, DRAM_WRITE, "bytes", comma, path)
        dram = None if read is None or write is None else read + write
    flops, dtype, unit = _flops(launch, comma, path)
    return Launch(key=(launch.name,), name=launch.name, seconds=seconds, flops=flops,
                  hbm_bytes=dram, l2_bytes=_value(launch, L2, "bytes", comma, path),
                  l1_bytes=_value(launch, L1, "bytes", comma, path), dtype=dtype, unit=unit,
                  line=where.row.line, column=where.col + 1)
