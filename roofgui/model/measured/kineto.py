"""PyTorch profiler (Kineto) trace JSON, as ``prof.export_chrome_trace()`` writes it.

GPU kernels are the events of category ``kernel`` (``dur`` in microseconds); each names
the CPU op that launched it through ``args["External id"]``, the same id as the op's event
(category ``cpu_op``).  With ``profile(with_flops=True)`` PyTorch records the op's FLOPs in
its ``args["flops"]`` (matrix multiplies and convolutions).  An op that launched several
kernels gives its FLOPs to the longest of them (the main GEMM beside its epilogue or
split-K reduction); the others' FLOPs stay unknown.  A trace records no HBM bytes:
they are unknown unless a kernel's args give them.  A trace augmented by PyTorch's
``torch._inductor.analysis.profile_analysis`` carries ``kernel_flop`` and ``kernel_num_gb``
(its estimates from the op's shapes) in each kernel's args: they are used when there.

Launches are grouped by kernel name, op and input shapes (one kernel serves many shapes).
The dtype comes from the op's ``args["Input type"]``, the chip from ``deviceProperties``
(``computeProperties`` in 2021 traces, whose kernel args spell ``external id`` and whose
categories are ``Operator`` and ``Kernel``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from roofgui.model.measured.record import KINETO, Kernel, Launch, MeasurementError, group_launches

TYPES = {"float": "fp32", "float32": "fp32", "c10::BFloat16": "bf16", "BFloat16": "bf16",
         "bfloat16": "bf16", "c10::Half": "fp16", "Half": "fp16", "float16": "fp16", "c10::Float8_e4m3fn": "fp8_e4m3", "c10::Float8_e5m2": "fp8_e5m2",
         "signed char": "int8"}
_EVENTS_KEY = re.compile(r'"traceEvents"\s*:\s*\[')


def looks_like_kineto(text: str) -> bool:
    return text.lstrip().startswith("{") and '"traceEvents"' in text


class _Where:
    """Line and column of each trace event, found only when an error needs one."""

    def __init__(self, text: str, path: str) -> None:
        self.text, self.path, self._starts = text, path, None

    def _offsets(self) -> list[int]:
        m = _EVENTS_KEY.search(self.text)
        out: list[int] = []
        if not m:
            return out
        decoder, i, n = json.JSONDecoder(), m.end(), len(self.text)
        while i < n:
            while i < n and self.text[i] in " \t\r\n,":
                i += 1
            if i >= n or self.text[i] == "]":
                break
            out.append(i)
            _, i = decoder.raw_decode(self.text, i)
        return out

    def error(self, index: int | None, problem: str) -> MeasurementError:
        if self._starts is None:
            self._starts = self._offsets()
        m = _EVENTS_KEY.search(self.text)
        offset = (self._starts[index] if index is not None and index < len(self._starts)
                  else (m.start() if m else 0))
        line = self.text.count("\n", 0, offset) + 1
        column = offset - self.text.rfind("\n", 0, offset)
        return MeasurementError(self.path, line, column, problem)


def load(text: str, path: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise MeasurementError(path, e.lineno, e.colno, f"not valid JSON: {e.msg}") from None
    except RecursionError:
        raise MeasurementError(path, 1, 1, "JSON nested too deeply") from None


def parse(text: str, path: str) -> tuple[tuple[Kernel, ...], str | None]:
    data = load(text, path)
    where = _Where(text, path)
    events = data.get("traceEvents") if isinstance(data, dict) else None
    if not isinstance(events, list):
        raise where.error(None, "Kineto trace: traceEvents must be a list of events")
    ops: dict[Any, dict] = {}
    kernels: list[tuple[int, dict]] = []
    for i, ev in enumerate(events):
        if not isinstance(ev, dict):
            raise where.error(i, "Kineto trace: an event must be an object")
        cat = str(ev.get("cat", "")).lower()
        args = ev.get("args") if isinstance(ev.get("args"), dict) else {}
        if cat in ("cpu_op", "operator") and external_id(args) is not None:
            ops[external_id(args)] = ev
        elif cat == "kernel":
            kernels.append((i, ev))
    if not kernels:
        raise where.error(None, "Kineto trace: no GPU kernel events (cat \"kernel\")")
    launches = _launches(kernels, ops, where)
    chip = _device_name(data)
    return group_launches(launches, KINETO, chip, path), chip


def _duration(i: int, ev: dict, where: _Where) -> float:
    dur = ev.get("dur")
    if isinstance(dur, bool) or not isinstance(dur, (int, float)) or not math.isfinite(dur):
        raise where.error(i, f"kernel {ev.get('name')!r}: dur must be a number (got {dur!r})")
    if dur <= 0:
        raise where.error(i, f"kernel {ev.get('name')!r}: time must be greater than zero "
                             f"(dur {dur!r} us)")
    return dur * 1e-6


def _number(value: Any, i: int, what: str, where: _Where) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value < 0:
        raise where.error(i, f"{what} must be a number of at least zero (got {value!r})")
    return float(value)


def _launches(kernels: list[tuple[int, dict]], ops: dict, where: _Where) -> list[Launch]:
    longest: dict[Any, tuple[float, int]] = {}
    durations = {}
    for i, ev in kernels:
        durations[i] = _duration(i, ev, where)
        ext = external_id(ev.get("args") or {})
        if ext in ops and durations[i] > longest.get(ext, (-1.0, -1))[0]:
            longest[ext] = (durations[i], i)
    out = []
    for i, ev in kernels:
        args = ev.get("args") or {}
        ext = external_id(args)
        op = ops.get(ext)
        op_args = (op.get("args") or {}) if op else {}
        flops = _number(args.get("kernel_flop"), i, "kernel_flop", where)
        if not flops and op is not None and longest[ext][1] == i:
            flops = _number(op_args.get("flops"), i, "the op's flops", where)
        gb = _number(args.get("kernel_num_gb"), i, "kernel_num_gb", where)
        hbm = gb * 1e9 if gb else _number(args.get("bytes"), i, "bytes", where)
        shape = op_args.get("Input Dims")
        name = str(ev.get("name", ""))
        shape_text = None if shape is None else json.dumps(shape, separators=(",", ":"))
        op_name = None if op is None else str(op.get("name", ""))
        out.append(Launch(key=(name, op_name, shape_text), name=name, seconds=durations[i],
                          flops=flops, hbm_bytes=hbm,
                          dtype=_dtype(op_args.get("Input type")), op=op_name,
                          shape=shape_text))
    return out


def external_id(args: dict) -> Any:
    """The op id a kernel or op event carries (``External id``; older traces spell the
    kernel's ``external id``)."""
    ext = args.get("External id", args.get("external id"))
    return ext if isinstance(ext, (int, str)) and not isinstance(ext, bool) else None


def _dtype(types: Any) -> str | None:
    if not isinstance(types, list):
        return None
    for t in types:
        if isinstance(t, str) and t in TYPES:
            return TYPES[t]
    return None


def _device_name(data: dict) -> str | None:
    props = data.get("deviceProperties", data.get("computeProperties"))
    if isinstance(props, list) and props and isinstance(props[0], dict):
        name = props[0].get("name")
        return name if isinstance(name, str) and name else None
    return None
