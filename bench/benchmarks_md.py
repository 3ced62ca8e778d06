#!/usr/bin/env python3
"""Writes docs/benchmarks.md from one run of gpusvd-bench: its standard output (machine,
ceilings) and the CSV files of that run (--csv; several when the run was split by --filter).

The run behind docs/benchmarks.md, on the GPU machine with a CUDA build in build/: one
gpusvd-bench per table, all of their output in one log (its machine lines are taken once),
the tables in the order of the CSV files:

    export PATH=$PWD/build/bin:$PATH
    CMD='for t in gpu:gesvj_batched gpu:geev_batched gpu:geqrf_mgs gpu:pca gpu:gesvj gpu:bdsvd cpu:gesvj_vs_gesdd cpu:pca; do gpusvd-bench --reps 5 --budget 3 --filter "$t " --csv "${t/:/_}.csv"; done'
    eval "$CMD" > bench.txt
    python3 bench/benchmarks_md.py --log bench.txt --csv gpu_gesvj_batched.csv \\
        gpu_geev_batched.csv gpu_geqrf_mgs.csv gpu_pca.csv gpu_gesvj.csv gpu_bdsvd.csv \\
        cpu_gesvj_vs_gesdd.csv cpu_pca.csv --command "$CMD" \\
        --commit $(git rev-parse --short HEAD) --date $(date +%F) \\
        [--python-csv python_bench.csv] [--devices-log devices.txt --devices-machine ...] \\
        [--keep old_benchmarks.md] > docs/benchmarks.md

--python-csv adds the section of bench/python_bench.py's CSV (the Python package's calls
against the C calls and the numpy/CuPy/torch counterparts). --devices-log adds the section of a
gpusvd-bench-devices run on a machine with several GPUs (its own run: --devices-machine,
--devices-command, --devices-commit, --devices-date name it; --python-machine, --python-commit
and --python-date the Python run's where it was not the main one). --keep copies either section
as it is from an earlier benchmarks.md when this run has none (a run of the C benchmark alone).
--table-run LOG CSV COMMAND COMMIT DATE puts the tables of a later gpusvd-bench run (same
machine kind) in place of the main run's tables of the same names, each naming its own run and
its floors from that run's ceilings: a routine re-measured after a change without re-running
every table. --keep-table NAME (with --keep) copies the table NAME as it is from the earlier
benchmarks.md, where it names its own run whose files are not at hand.

Every figure README.md quotes comes from the file this writes; regenerate both together.
"""
import argparse
import csv
import math
import re
import sys

GPU_HEAD = ["case", "size", "gpusvd ms", "cuSOLVER ms", "host LAPACK ms", "cuSOLVER / gpusvd",
            "host / gpusvd", "floor ms", "gpusvd / floor", "check"]
CPU_HEAD = ["case", "size", "gpusvd ms", "LAPACKE ms", "overhead %", "floor ms", "check"]


def number(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return math.nan
    return v


def fmt(v, spec="{:.3g}"):
    return "-" if not math.isfinite(v) else spec.format(v)


def cell(ms, note):
    return fmt(ms, "{:.4g}") if math.isfinite(ms) else (note or "-")


def ceilings(log):
    """(host, gpu) ceilings: dicts of gflops, gbs, pcie_gbs, from the bench's own lines."""
    host, gpu = {}, {}
    m = re.search(r"host ceilings .*?dgemm ([\d.]+) GFLOP/s, memcpy ([\d.]+) GB/s", log)
    if m:
        host = {"gflops": float(m.group(1)), "gbs": float(m.group(2))}
    m = re.search(r"GPU ceilings .*?DGEMM ([\d.]+) GFLOP/s.*?device copy ([\d.]+) GB/s.*?"
                  r"PCIe ([\d.]+) GB/s", log, re.S)
    if m:
        gpu = {"gflops": float(m.group(1)), "gbs": float(m.group(2)),
               "pcie_gbs": float(m.group(3))}
    return host, gpu


def floor_ms(row, c):
    t = 0.0
    for key, rate in (("flops", "gflops"), ("bytes", "gbs"), ("pcie_bytes", "pcie_gbs")):
        amount = number(row.get(key))
        if c.get(rate) and math.isfinite(amount) and amount > 0:
            t = max(t, amount / (c[rate] * 1e9) * 1e3)
    return t if t > 0 else math.nan


def table_md(name, rows, c):
    gpu = name.startswith("gpu:")
    out = ["## `%s`" % name, ""]
    other = gpu and any(math.isfinite(number(r.get("d_ms"))) for r in rows)
    head = list(GPU_HEAD if gpu else CPU_HEAD)
    if other:  # a second counterpart (named after "|" in the case)
        head[5:5] = ["other ms", "other / gpusvd"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join("---" if i < 2 else "---:" for i in range(len(head))) + "|")
    for r in rows:
        a, b, cc = number(r["a_ms"]), number(r["b_ms"]), number(r["c_ms"])
        fl = floor_ms(r, c)
        if gpu:
            cells = [r["case"], r["size"], cell(a, r["a_note"]), cell(b, r["b_note"]),
                     cell(cc, r["c_note"]), fmt(b / a), fmt(cc / a), fmt(fl, "{:.3g}"),
                     fmt(a / fl, "{:.1f}"), r["check"]]
            if other:
                d = number(r.get("d_ms"))
                cells[5:5] = [cell(d, r.get("d_note", "")), fmt(d / a)]
        else:
            cells = [r["case"], r["size"], cell(a, r["a_note"]), cell(b, r["b_note"]),
                     fmt((a / b - 1) * 100, "{:+.1f}"), fmt(fl, "{:.3g}"), r["check"]]
        out.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    tags = sorted({r["tags"] for r in rows if r.get("tags")})
    if tags:
        out += ["", "Notes: " + "; ".join(tags) + "."]
    return out + [""]


def gesvj_vs_gesdd_md(name, rows):
    """The table setting gpusvd's Jacobi SVD on the CPU against LAPACK's dgesdd: times, and
    on the graded row the relative error of each method (from the check text, "ok E, gesdd
    E2 ...")."""
    out = ["## `%s`" % name, "",
           "gpusvd's CPU backend (one-sided Jacobi, LAPACK dgesvj) against LAPACKE dgesdd (divide "
           "and conquer), both computing S, thin U and V, with OpenBLAS threads as in the header. "
           "Random rows: entries uniform in (-1, 1); their check is the agreement of the two sets "
           "of singular values (normwise). Graded row: A = Q B with Q random orthonormal and B "
           "upper bidiagonal, its columns scaled from 1 to 1e-14 in random order (construction "
           "and error analysis in `bench/cpu_rows.cpp`); error is max_i |s_i - r_i| / r_i "
           "against B's singular values r by dqds, which are A's to about 3 sqrt(n) eps "
           "relative. The check fails when gpusvd's error exceeds 10 n eps. Only neighbouring "
           "columns of B overlap, so Jacobi needs few rotations there: the random rows are the "
           "time comparison.", ""]
    head = ["case", "size", "gpusvd dgesvj ms", "LAPACKE dgesdd ms", "dgesdd / gpusvd",
            "dgesvj max rel. error", "dgesdd max rel. error", "check"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join("---" if i < 2 else "---:" for i in range(len(head))) + "|")
    for r in rows:
        a, b = number(r["a_ms"]), number(r["b_ms"])
        m = re.match(r"\S+ (\S+), gesdd (\S+)", r["check"])
        errs = list(m.groups()) if m else ["-", "-"]
        cells = [r["case"], r["size"], cell(a, r["a_note"]), cell(b, r["b_note"]),
                 fmt(b / a), errs[0], errs[1], r["check"]]
        out.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    return out + [""]


PYTHON_HEADING = "## Python package (`bench/python_bench.py`)"
DEVICES_HEADING = "## Several GPUs (`gpusvd-bench-devices`)"


def run_line(date, commit, machine):
    return "Its own run: %s, commit `%s`, %s." % (date, commit, machine)


def python_md(rows, command, run):
    """The section of bench/python_bench.py's CSV: per case, one row per input kind and
    order, gpusvd's Python call against the C call on the same data and the fastest
    counterpart. run: run_line's sentence."""
    out = [PYTHON_HEADING, "", run, "",
           "Command: `%s`. The C call is the library routine called through ctypes on the same "
           "data in per-matrix Fortran order (the `_gpu` form for CuPy input, the host form for "
           "numpy input); `/ C` above 1 means the Python call is slower. A counterpart ratio "
           "above 1 means gpusvd is faster." % command, ""]
    cases = {}
    for r in rows:
        cases.setdefault((r["case"], r["size"], r["dtype"]), {}).setdefault(
            r["input"], []).append(r)
    head = ["input", "gpusvd ms", "/ C", "overwrite_a ms", "/ C", "C call ms",
            "counterpart", "counterpart ms", "counterpart / gpusvd", "check"]
    for (case, size, dtype), inputs in cases.items():
        out += ["### %s, %s, %s" % (case, size, dtype), "",
                "| " + " | ".join(head) + " |",
                "|---|" + "---:|" * 5 + "---|---:|---:|---:|"]
        for label, rs in inputs.items():
            by = {r["method"]: r for r in rs}
            c = next((r for r in rs if r["method"].startswith("C ")), None)
            g = by.get("gpusvd", {})
            o = by.get("gpusvd overwrite_a=True", {})
            others = [r for r in rs if r is not c and r["method"] not in by.keys() & {
                "gpusvd", "gpusvd overwrite_a=True"}]
            timed = [r for r in others if math.isfinite(number(r["ms"]))]
            best = min(timed, key=lambda r: number(r["ms"])) if timed else (
                others[0] if others else {})
            gms, oms, cms = number(g.get("ms")), number(o.get("ms")), number(
                c["ms"] if c else None)
            bms = number(best.get("ms"))
            name = best.get("method", "-")
            if best.get("note"):
                name += " (%s)" % best["note"]
            cells = [label, fmt(gms, "{:.4g}"), fmt(gms / cms), fmt(oms, "{:.4g}"),
                     fmt(oms / cms), fmt(cms, "{:.4g}"), name, fmt(bms, "{:.4g}"),
                     fmt(bms / gms), g.get("check") or "-"]
            out.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
        out.append("")
    return out


def devices_md(log, command, machine, commit, date):
    """The section of a gpusvd-bench-devices run (a machine with several GPUs, its own run):
    the host ceilings it printed and its table, the first of each when the log holds several
    runs of the same command."""
    ceil, table = [], []
    for line in log.splitlines():
        line = line.strip()
        if line.startswith("host ceilings:") and len(ceil) < 2:
            ceil.append(line[len("host ceilings:"):].strip())
        elif line.startswith("| case"):
            if table:
                break  # the next run's table
            table.append(line)
        elif line.startswith("|") and table and not line.startswith("|--"):
            table.append(line)
    if not table:
        return []
    cols = table[0].count("|") - 1
    out = [DEVICES_HEADING, "",
           "Host to host: the batched host forms on one GPU and split over all of the machine's "
           "GPUs (`gpusvdSetDevices`), on pageable arrays and on page-locked ones (which skip "
           "the staging copy on the cores), one GPU's time measured in the same run; medians. "
           "Its own run:", "",
           "- Date: %s, commit `%s`" % (date, commit),
           "- Machine: %s" % machine,
           "- Command: `%s`" % command]
    out += ["- Host ceilings: " + c for c in ceil]
    out += ["", table[0], "|" + "---|" * cols] + table[1:] + [""]
    return out


def machine_lines(log):
    """gpusvd-bench's lines naming the build and machine, each once (the first run's; the
    filters are in the command)."""
    machine, seen = [], set()
    for line in log.splitlines():
        for kind in ("gpusvd-bench: gpusvd", "build:", "host:", "GPU:"):
            if line.startswith(kind) and kind not in seen:
                seen.add(kind)
                machine.append(re.sub(r", filter .*$", "", line))
    return machine


def read_tables(paths):
    """The rows of gpusvd-bench --csv files, by table name, in the order they come."""
    tables = {}
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                tables.setdefault(row["table"], []).append(row)
    return tables


def kept_section(path, heading):
    """The section under `heading` of an earlier benchmarks.md (to the next "## " heading), as
    it is (it names its own run); [] where it has none."""
    lines = open(path, encoding="utf-8").read().split("\n")
    if heading not in lines:
        return []
    i = lines.index(heading)
    j = next((k for k in range(i + 1, len(lines)) if lines[k].startswith("## ")), len(lines))
    section = lines[i:j]
    while section and not section[-1].strip():
        section.pop()
    return section + [""]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--log", required=True, help="gpusvd-bench's standard output")
    p.add_argument("--csv", action="extend", nargs="+", required=True,
                   help="the --csv files of the run (the option may be repeated)")
    p.add_argument("--command", required=True, help="the command that produced the run")
    p.add_argument("--commit", required=True)
    p.add_argument("--date", required=True)
    p.add_argument("--python-csv", help="the CSV of bench/python_bench.py (same machine)")
    p.add_argument("--python-command", default="python3 bench/python_bench.py",
                   help="the command that produced --python-csv")
    p.add_argument("--python-machine", help="the machine of the Python run, in words "
                   "(default: the main run's GPU)")
    p.add_argument("--python-commit", help="the commit of the Python run (default: --commit)")
    p.add_argument("--python-date", help="the date of the Python run (default: --date)")
    p.add_argument("--keep", help="an earlier docs/benchmarks.md whose Python and several-GPU "
                   "sections are kept where this run has no --python-csv or --devices-log")
    p.add_argument("--table-run", action="append", nargs=5,
                   metavar=("LOG", "CSV", "COMMAND", "COMMIT", "DATE"),
                   help="a later gpusvd-bench run whose tables replace the main run's of the "
                   "same names (may be repeated)")
    p.add_argument("--keep-table", action="append", default=[], metavar="NAME",
                   help="a table copied as it is from --keep's file, where it names its own "
                   "run (may be repeated)")
    p.add_argument("--devices-log", help="the output of gpusvd-bench-devices (its own run)")
    p.add_argument("--devices-command", default="gpusvd-bench-devices")
    p.add_argument("--devices-machine", help="the machine of --devices-log, in words")
    p.add_argument("--devices-commit", help="the commit of --devices-log's run")
    p.add_argument("--devices-date", help="the date of --devices-log's run")
    a = p.parse_args()
    log = open(a.log, encoding="utf-8").read()
    host_c, gpu_c = ceilings(log)
    machine = machine_lines(log)
    tables = read_tables(a.csv)
    # Tables of later runs: rows, ceilings and the sentence naming the run, by table name.
    later = {}
    for t_log, t_csv, t_command, t_commit, t_date in a.table_run or []:
        text = open(t_log, encoding="utf-8").read()
        gpu_line = next((x for x in machine_lines(text) if x.startswith("GPU:")), "GPU: -")
        run = "Its own run: %s, commit `%s`, one %s, command `%s`." % (
            t_date, t_commit, gpu_line[len("GPU:"):].strip().split(" (")[0], t_command)
        for name, rows in read_tables([t_csv]).items():
            later[name] = (rows, ceilings(text), run)
            tables.setdefault(name, [])
    md = ["# Benchmarks", "",
          "Generated by `bench/benchmarks_md.py` from one run of `gpusvd-bench` (the Python and "
          "several-GPU sections, and any table that names its own run, from their own runs); do "
          "not edit by hand. Times are medians in milliseconds; a ratio above 1 means gpusvd is faster. "
          "The floor is the larger of the run's flop count at the measured DGEMM rate and its "
          "byte count at the measured copy bandwidth (PCIe for host-to-host rows). Complex rows "
          "(cases named c... or z..., next to the real rows of their routine) count a complex "
          "multiply-add as four real ones.", "",
          "- Date: %s, commit `%s`" % (a.date, a.commit),
          "- Command: `%s`" % a.command]
    md += ["- " + line.strip() for line in machine]
    if gpu_c:
        md.append("- GPU ceilings: DGEMM %.0f GFLOP/s, device copy %.0f GB/s, PCIe %.1f GB/s"
                  % (gpu_c["gflops"], gpu_c["gbs"], gpu_c["pcie_gbs"]))
    if host_c:
        md.append("- Host ceilings: dgemm %.1f GFLOP/s, memcpy %.1f GB/s"
                  % (host_c["gflops"], host_c["gbs"]))
    md += ["", "To regenerate: build with CUDA on a GPU machine and run the commands at the top "
           "of `bench/benchmarks_md.py` (the command above, its output to a log, then that "
           "script); README.md quotes the rows.", ""]
    if a.keep_table and not a.keep:
        p.error("--keep-table needs --keep")
    for name in a.keep_table:
        if name not in tables:
            p.error("--keep-table %s: no table of that name in the run's CSV files" % name)
    for name, rows in tables.items():
        if name in a.keep_table:
            kept = kept_section(a.keep, "## `%s`" % name)
            if not kept or not any(line.startswith("Its own run:") for line in kept):
                p.error("--keep-table %s: no such table naming its own run in %s" % (name, a.keep))
            md += kept
            continue
        run = None
        if name in later:
            rows, (t_host, t_gpu), run = later[name]
        else:
            t_host, t_gpu = host_c, gpu_c
        if name == "cpu:gesvj_vs_gesdd":
            section = gesvj_vs_gesdd_md(name, rows)
        else:
            section = table_md(name, rows, t_gpu if name.startswith("gpu:") else t_host)
        if run:
            section[2:2] = [run, ""]
        md += section
    if a.python_csv:
        gpu_line = next((line for line in machine if line.startswith("GPU:")), "GPU: -")
        run = run_line(a.python_date or a.date, a.python_commit or a.commit,
                       a.python_machine or "one " + gpu_line[len("GPU:"):].strip().split(" (")[0])
        with open(a.python_csv, newline="", encoding="utf-8") as f:
            md += python_md(list(csv.DictReader(f)), a.python_command, run)
    elif a.keep:
        md += kept_section(a.keep, PYTHON_HEADING)
    if a.devices_log:
        md += devices_md(open(a.devices_log, encoding="utf-8").read(), a.devices_command,
                         a.devices_machine or "-", a.devices_commit or a.commit,
                         a.devices_date or a.date)
    elif a.keep:
        md += kept_section(a.keep, DEVICES_HEADING)
    sys.stdout.write("\n".join(md))


if __name__ == "__main__":
    main()
