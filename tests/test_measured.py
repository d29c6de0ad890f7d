"""Measured-kernel files: each format read with numbers worked by hand, and every malformed
case a MeasurementError naming the file, line and column (fixtures: tests/fixtures/measured)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from roofgui.model.measured import (MeasurementError, achieved_bandwidth, achieved_flops,
                                    intensity, parse_measurements, parse_text)

FIX = Path(__file__).parent / "fixtures" / "measured"
REL = 1e-12


def approx(v):
    return pytest.approx(v, rel=REL)


def by_name(s, start):
    [k] = [k for k in s.kernels if k.name.startswith(start)]
    return k


# -- Nsight Compute ------------------------------------------------------------------

def test_ncu_one_row_per_metric():
    s = parse_measurements(FIX / "ncu_metrics.csv")
    assert s.format == "ncu" and len(s) == 2
    gemm = by_name(s, "ampere_bf16_s16816gemm")
    assert gemm.count == 3                      # launches 0, 2, 4
    assert gemm.seconds == approx(1050e-6)      # median of 1,000.00 / 1,100.00 / 1,050.00 usecond
    # tensor ops (already 2 per FMA) + 2*ffma + fadd + fmul
    assert gemm.flops == approx(137_438_953_472 + 2 * 1_048_576 + 65_536 + 0)
    assert gemm.hbm_bytes == approx(51_380_224)  # median of three dram__bytes.sum
    assert gemm.l2_bytes == approx(805.31e6)     # Mbyte
    assert gemm.l1_bytes == approx(3.22e9)       # Gbyte
    assert (gemm.dtype, gemm.unit, gemm.chip) == ("bf16", "matrix", None)
    ew = by_name(s, "void at::native::vectorized_elementwise_kernel")
    assert ew.count == 2
    assert ew.seconds == approx((20_480 + 20_992) / 2 * 1e-9)
    assert ew.flops == approx(4_194_304)                 # fmul only
    assert ew.hbm_bytes == approx(16_777_216 + 8_388_608)  # read + write
    assert (ew.dtype, ew.unit, ew.l2_bytes) == ("fp32", "vector", None)
    assert achieved_flops(ew) == approx(4_194_304 / 20_736e-9)
    assert achieved_bandwidth(ew) == approx(25_165_824 / 20_736e-9)
    assert intensity(ew) == approx(4_194_304 / 25_165_824)


def test_ncu_comma_decimal_locale():
    [k] = parse_measurements(FIX / "ncu_comma_locale.csv").kernels
    assert k.seconds == approx(117.344e-6)     # "117,344" usecond
    assert k.hbm_bytes == approx(27_595_520)   # "27.595.520" byte
    assert k.flops == approx(2 * 1_048_576)    # "1.048.576" ffma


def test_ncu_raw_page_with_units_row():
    s = parse_measurements(FIX / "ncu_raw.csv")
    h = by_name(s, "hgemm_naive")
    assert h.seconds == approx(1.25e-3)                     # msecond
    assert h.hbm_bytes == approx(67.11e6 + 2_097.15e3)      # Mbyte read + Kbyte write
    assert h.l2_bytes == approx(1.5e9)
    assert h.flops == approx(2 * 1_073_741_824 + 262_144)   # 2*hfma + hadd
    assert (h.dtype, h.unit, h.chip) == ("fp16", "vector", "NVIDIA H100 80GB HBM3")
    d = by_name(s, "dgemm_naive")
    assert d.flops == approx(2 * 536_870_912) and d.dtype is None  # fp64 has no peak key
    assert d.hbm_bytes == approx(33.55e6 + 1_048.58e3)


def test_ncu_real_layout_b200_ns_units():
    # the layout of an ncu 2025 --page raw export on a B200 (time unit "ns")
    text = ('==PROF== Connected to process 250292 (/usr/bin/python3.12)\n'
            '"ID","Kernel Name","CC","device__attribute_display_name","gpu__time_duration.sum"\n'
            '"","","","","ns"\n'
            '"0","k","10.0","NVIDIA B200","9,920"\n"1","k","10.0","NVIDIA B200","23,872"\n')
    [k] = parse_text(text, "b200.csv").kernels
    assert (k.count, k.seconds, k.flops, k.hbm_bytes) == (2, approx((9920 + 23872) / 2 * 1e-9),
                                                         None, None)


def test_ncu_cycles_when_no_duration():
    text = ('"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
            '"0","k","smsp__cycles_elapsed.avg","cycle","5,145,083,088.72"\n'
            '"0","k","smsp__cycles_elapsed.avg.per_second","cycle/second","764,999,991.90"\n')
    [k] = parse_text(text, "c.csv").kernels
    assert k.seconds == approx(5_145_083_088.72 / 764_999_991.90)


# -- rocprof-compute -----------------------------------------------------------------

def test_rocprof_pmc_perf_mi200():
    [k] = parse_measurements(FIX / "rocprof_mi200_pmc_perf.csv").kernels
    assert k.format == "rocprof-compute" and k.count == 3
    # End - Start of the three dispatches: 20,640, 15,520, 16,480 ns
    assert k.seconds == approx(16_480e-9)
    assert k.flops == 0.0                     # a copy: every VALU and MFMA count is 0
    # 32*RDREQ_32B + 64*(RDREQ-RDREQ_32B) + 64*WRREQ_64B + 32*(WRREQ-WRREQ_64B), per dispatch:
    # 64*(131080+131072), 64*(131073+91554), 64*(131081+91236) -> the median
    assert k.hbm_bytes == approx(64 * (131_073 + 91_554))
    assert k.l2_bytes == approx(64 * (131_072 + 131_072 + 0 + 0))
    assert k.l1_bytes == approx(64 * 524_288)


def test_rocprof_pmc_perf_mi300x_ea0_counters():
    [k] = parse_measurements(FIX / "rocprof_mi300x_pmc_perf.csv").kernels
    assert k.seconds == approx(13_560e-9)     # of 16,119, 13,560, 13,480 ns
    assert k.hbm_bytes == approx(64 * (65_778 + 131_072))


def test_rocprof_flops_formula():
    cols = ["Kernel_Name", "Start_Timestamp", "End_Timestamp"]
    valu = [f"SQ_INSTS_VALU_{o}_{p}" for p in ("F16", "F32", "F64") for o in ("ADD", "MUL", "FMA", "TRANS")]
    text = (",".join(cols + valu + ["SQ_INSTS_VALU_MFMA_MOPS_BF16"]) + "\n" +
            ",".join(["gemm", "1000", "3000"] + ["1"] * 4 + ["10", "20", "30", "40"] + ["0"] * 4 + ["100"]) + "\n")
    [k] = parse_text(text, "pmc_perf.csv").kernels
    assert k.seconds == approx(2000e-9)
    assert k.flops == approx(64 * (1 + 1 + 2 + 1) + 64 * (10 + 20 + 2 * 30 + 40) + 512 * 100)
    assert (k.dtype, k.unit, k.hbm_bytes) == ("bf16", "matrix", None)


def test_rocprof_roofline_ceilings():
    s = parse_measurements(FIX / "rocprof_mi200_roofline.csv")
    assert s.kernels == () and s.format == "rocprof-compute-roofline"
    # one device row: HBMBw 1388.7948 GB/s, MFMABF16Flops 170487.92 GFLOP/s
    assert s.ceilings["hbm_bandwidth"] == approx(1388.7948e9)
    assert s.ceilings["bf16"] == approx(170487.92e9)
    assert set(s.ceilings) >= {"fp32", "fp16", "l2_bandwidth", "l1_bandwidth"}


def test_rocprof_roofline_median_over_devices():
    text = "device,HBMBw,FP32Flops\n0,1000,10\n1,1300,30\n2,1200,20\n"
    s = parse_text(text, "roofline.csv")
    assert s.ceilings == {"hbm_bandwidth": approx(1200e9), "fp32": approx(20e9)}


# -- XProf ---------------------------------------------------------------------------

def test_xprof_roofline_export():
    s = parse_measurements(FIX / "xprof_roofline.csv")
    assert [k.name for k in s] == ["fusion.12", "fusion.7", "cublas-gemm.3"]  # "Total" rows, no Program
    conv = s.kernels[0]
    assert conv.count == 20 and conv.seconds == approx(40e-6)
    assert conv.flops == approx(150_000e9 * 40e-6)          # GFLOP/s x avg time
    assert conv.hbm_bytes == approx(250 * 2**30 * 40e-6)    # GiB/s x avg time
    assert s.kernels[2].hbm_bytes is None                   # empty HBM BW cell


# -- PyTorch profiler ----------------------------------------------------------------

def test_kineto_kernels_joined_to_ops():
    s = parse_measurements(FIX / "kineto_flops.json")
    assert s.format == "kineto"
    mm = by_name(s, "ampere_sgemm_128x64_nn")
    assert (mm.count, mm.op, mm.dtype) == (3, "aten::mm", "fp32")
    assert mm.seconds == approx(150.5e-6)                  # median of 150.5, 149.5, 151.0 us
    assert mm.flops == approx(2 * 1024 ** 3)               # the op's recorded flops
    assert mm.hbm_bytes is None and mm.chip == "NVIDIA A100-SXM4-80GB"
    assert mm.shape == "[[1024,1024],[1024,1024]]"
    main = by_name(s, "ampere_bf16_s16816gemm")
    split = by_name(s, "void cublasLt::splitKreduce_kernel")
    assert main.flops == approx(268_435_456) and split.flops is None  # the longest kernel has them
    assert main.dtype == "bf16" and split.seconds == approx(5e-6)
    assert by_name(s, "void at::native::vectorized_elementwise_kernel").flops is None


def test_kineto_real_2021_trace():
    s = parse_measurements(FIX / "kineto_v100_2021.json")
    assert sum(k.count for k in s) == 30
    sgemm = by_name(s, "volta_sgemm_128x32_nt")
    assert (sgemm.count, sgemm.seconds, sgemm.op) == (2, approx(3e-6), "aten::mm")
    assert sgemm.chip == "Tesla V100-DGXS-32GB" and sgemm.flops is None


# -- plain ---------------------------------------------------------------------------

def test_plain_csv():
    s = parse_measurements(FIX / "plain.csv")
    g = by_name(s, "gemm_4096")
    assert (g.count, g.seconds, g.flops, g.hbm_bytes) == (4, approx(0.001), 137438953472, 100663296)
    assert (g.dtype, g.chip) == ("bf16", "h100-sxm")
    ln = by_name(s, "layernorm")
    assert (ln.count, ln.flops, ln.hbm_bytes, ln.dtype) == (10, None, 33554432, None)
    assert by_name(s, "softmax").flops == approx(2.5e7)


def test_format_is_told_from_content_not_name(tmp_path):
    p = tmp_path / "profile.txt"
    shutil.copy(FIX / "ncu_raw.csv", p)
    assert parse_measurements(p).format == "ncu"
    q = tmp_path / "trace.csv"
    shutil.copy(FIX / "kineto_flops.json", q)
    assert parse_measurements(q).format == "kineto"


# -- malformed files: one MeasurementError naming file, line and column ---------------

def error_of(tmp_path, text: str | bytes, name: str = "m.csv") -> MeasurementError:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(MeasurementError) as info:
        parse_measurements(p)
    e = info.value
    assert str(e).startswith(f"{p}:{e.line}:{e.column}: ") and "\n" not in str(e)
    return e


PLAIN_ROWS = "name,seconds,flops,bytes\n" + "".join(f"k{i},1e-3,1e9,1e6\n" for i in range(5))


@pytest.mark.parametrize("text, line, column, words", [
    ("", 1, 1, "empty file"),
    ("  \n\n", 1, 1, "empty file"),
    ("==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n", 1, 1, "empty"),
    ("a,b,c\n1,2,3\n", 1, 1, "unknown format"),
    ('{"schemaVersion": 1}', 1, 1, "unknown format"),
    ("name,seconds,flops\nk,1e-3,1e9\n", 1, 4, "missing column 'bytes'"),
    ('"ID","Kernel Name","Metric Name","Metric Value"\n"0","k","gpu__time_duration.sum","5"\n',
     1, 5, "missing column 'Metric Unit'"),
    ("Dispatch_ID,Kernel_Name,Start_Timestamp\n0,k,5\n", 1, 4, "missing column 'End_Timestamp'"),
    (PLAIN_ROWS + "k5,fast,1e9,1e6\n", 7, 2, "seconds: 'fast' is not a number"),
    (PLAIN_ROWS + "k5,1e-3,1e9,12 MB\n", 7, 4, "bytes: '12 MB' is not a number"),
    ("name,seconds,flops,bytes\nk,-0.001,1e9,1e6\n", 2, 2, "negative"),
    ("name,seconds,flops,bytes\nk,0,1e9,1e6\n", 2, 2, "greater than zero"),
    ("name,seconds,flops,bytes\nk,,1e9,1e6\n", 2, 2, "seconds is empty"),
    ("name,seconds,flops,bytes\nk,1e999,1e9,1e6\n", 2, 2, "not finite"),
    ("name,seconds,flops,bytes\nk,inf,1e9,1e6\n", 2, 2, "not a number"),
    ("name,seconds,flops,bytes,seconds\nk,1,1,1,1\n", 1, 5, "duplicate header 'seconds'"),
    ("name,seconds,flops,bytes\nk,1e-3,1e9\n", 2, 4, "3 fields"),
    ("name,seconds,flops,bytes,speed\nk,1,1,1,1\n", 1, 5, "unknown column 'speed'"),
    ("name,seconds,flops,bytes,count\nk,1,1,1,2.5\n", 2, 5, "whole number"),
    ("name,seconds,flops,bytes,dtype\nk,1,1,1,fp7\n", 2, 5, "unknown dtype"),
    ("name,seconds,flops,bytes\n", 1, 1, "no rows"),
])
def test_malformed_plain_and_detection(tmp_path, text, line, column, words):
    e = error_of(tmp_path, text)
    assert (e.line, e.column) == (line, column), str(e)
    assert words in e.problem


NCU_HEAD = ('==PROF== Connected to process 1 (/bin/app)\n'
            '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n')


@pytest.mark.parametrize("rows, line, column, words", [
    ('"0","k","gpu__time_duration.sum","byte","5"\n', 3, 4, "unit 'byte' is not a time unit"),
    ('"0","k","gpu__time_duration.sum","nsecond","5"\n"0","k","dram__bytes.sum","nsecond","7"\n',
     4, 4, "not a bytes unit"),
    ('"0","k","gpu__time_duration.sum","nsecond","5"\n'
     '"0","k","sm__sass_thread_inst_executed_op_ffma_pred_on.sum","furlong","7"\n', 4, 4, "count unit"),
    ('"0","k","gpu__time_duration.sum","nsecond","0"\n', 3, 5, "greater than zero"),
    ('"0","k","gpu__time_duration.sum","nsecond","12..5"\n', 3, 5, "not a number"),
    ('"0","k","dram__bytes.sum","byte","5"\n', 3, 2, "no gpu__time_duration.sum"),
    ('"0","k","gpu__time_duration.sum","nsecond"\n', 3, 5, "4 fields"),
    ('', 2, 1, "no kernel rows"),
])
def test_malformed_ncu(tmp_path, rows, line, column, words):
    e = error_of(tmp_path, NCU_HEAD + rows)
    assert (e.line, e.column) == (line, column), str(e)
    assert words in e.problem


def test_ncu_duplicate_header_and_missing_units_row(tmp_path):
    e = error_of(tmp_path, '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value","Metric Value"\n'
                           '"0","k","gpu__time_duration.sum","ns","5","5"\n')
    assert (e.line, e.column) == (1, 6) and "duplicate header" in e.problem
    e = error_of(tmp_path, '"ID","Kernel Name","gpu__time_duration.sum"\n"0","k","5"\n')
    assert (e.line, e.column) == (2, 2) and "units row" in e.problem


def test_truncated_and_bad_json(tmp_path):
    text = (FIX / "kineto_flops.json").read_text()
    cut = text[: len(text) // 2]
    e = error_of(tmp_path, cut, "trace.json")
    assert e.line == cut.count("\n") + 1 and "not valid JSON" in e.problem
    # a kernel of zero time: the error names where that event starts
    lines = text.splitlines()
    at = next(i for i, s in enumerate(lines) if '"dur": 149.5' in s)
    e = error_of(tmp_path, text.replace('"dur": 149.5', '"dur": 0'), "trace.json")
    start = max(i for i in range(at) if lines[i].strip() == "{")
    assert (e.line, e.column) == (start + 1, lines[start].index("{") + 1)
    assert "greater than zero" in e.problem
    e = error_of(tmp_path, text.replace('"dur": 149.5', '"dur": "slow"'), "trace.json")
    assert e.line == start + 1 and "dur must be a number" in e.problem
    e = error_of(tmp_path, '{"traceEvents": [{"cat": "cpu_op", "dur": 3}]}', "t.json")
    assert (e.line, e.column) == (1, 2) and "no GPU kernel events" in e.problem


def test_unreadable_and_binary_files(tmp_path):
    with pytest.raises(MeasurementError) as info:
        parse_measurements(tmp_path / "missing.csv")
    assert (info.value.line, info.value.column) == (1, 1) and "cannot read" in str(info.value)
    e = error_of(tmp_path, b"name,seconds,flops,bytes\nk,1,\xff\xfe,1\n")
    assert (e.line, e.column) == (2, 5) and "UTF-8" in e.problem


def test_text_before_a_non_ncu_header_is_refused(tmp_path):
    e = error_of(tmp_path, "some log line\n" + PLAIN_ROWS)
    assert (e.line, e.column) == (1, 1) and "unknown format" in e.problem


def test_a_number_in_the_other_locale_is_an_error_not_misread(tmp_path):
    e = error_of(tmp_path, 'name,seconds,flops,bytes\na,0.5,1,1\nb,"0,25",1,1\n')
    assert (e.line, e.column) == (3, 2) and "not a number" in e.problem
    s = parse_text('name,seconds,flops,bytes\na,"0,5","1.000.000",2\n', "comma.csv")
    assert (s.kernels[0].seconds, s.kernels[0].flops) == (0.5, 1e6)


def test_the_set_names_the_device_the_file_names():
    assert parse_measurements(FIX / "ncu_raw.csv").chip == "NVIDIA H100 80GB HBM3"
    assert parse_measurements(FIX / "kineto_flops.json").chip == "NVIDIA A100-SXM4-80GB"
    assert parse_measurements(FIX / "plain.csv").chip == "h100-sxm"
    assert parse_measurements(FIX / "ncu_metrics.csv").chip is None


def test_kineto_inductor_augmented_kernel_args():
    # torch._inductor.analysis.profile_analysis writes kernel_flop / kernel_num_gb per kernel
    text = ('{"deviceProperties": [{"id": 0, "name": "NVIDIA H100"}], "traceEvents": [\n'
            '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 9,'
            ' "args": {"External id": 7, "Input type": ["c10::Half", "c10::Half"]}},\n'
            '{"ph": "X", "cat": "kernel", "name": "sm90_gemm", "ts": 2, "dur": 25,'
            ' "args": {"External id": 7, "kernel_flop": 8589934592, "kernel_num_gb": 0.025165824}}]}')
    [k] = parse_text(text, "augmented.json").kernels
    assert (k.flops, k.hbm_bytes, k.seconds) == (8589934592, approx(25_165_824), approx(25e-6))
    assert (k.dtype, k.op, k.chip) == ("fp16", "aten::mm", "NVIDIA H100")


def test_ncu_default_sections_duration_label():
    # plain `ncu --csv` (default set): SpeedOfLight labels the time "Duration"
    text = ('"ID","Process ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n'
            '"0","9","k","GPU Speed Of Light Throughput","DRAM Throughput","%","41.20"\n'
            '"0","9","k","GPU Speed Of Light Throughput","Duration","usecond","7.42"\n')
    [k] = parse_text(text, "default.csv").kernels
    assert (k.seconds, k.flops, k.hbm_bytes) == (approx(7.42e-6), None, None)


def test_windows_line_ends_and_byte_order_mark(tmp_path):
    e = error_of(tmp_path, "\ufeffname,seconds,flops,bytes\r\nk,1,1,1\r\nk,x,1,1\r\n")
    assert (e.line, e.column) == (3, 2)
    [k] = parse_text("\ufeffname,seconds,flops,bytes\r\nk,2,1,1\r\n", "w.csv").kernels
    assert (k.name, k.seconds) == ("k", 2.0)


def test_a_folder_or_fifo_is_refused_at_once(tmp_path):
    with pytest.raises(MeasurementError) as info:
        parse_measurements(tmp_path)
    assert (info.value.line, info.value.column) == (1, 1) and "cannot read" in str(info.value)
    import os
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.csv"
        os.mkfifo(fifo)
        with pytest.raises(MeasurementError, match="not a regular file"):
            parse_measurements(fifo)
