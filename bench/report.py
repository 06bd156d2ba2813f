"""results.md and results.png from the raw records of bench/bench.py.

    python3 bench/report.py RAW.jsonl OUT.md      (the plot goes next to OUT.md as .png)

Standard library only; the plot needs gnuplot (Debian gnuplot-nox).
"""
import json
import math
import os
import statistics
import subprocess
import sys

TEILC = "teilc"
# implementation families of the plot and the CFD table: (label, predicate)
FAMILIES = [
    ("teilc", lambda i: i == TEILC),
    ("OpenBLAS (best variant)", lambda i: i.startswith("openblas")),
    ("NumPy (best call)", lambda i: i.startswith("numpy") and "@" not in i),
    ("naive C, OpenMP", lambda i: i == "c-naive-omp"),
    ("naive C, sequential", lambda i: i == "c-naive-seq"),
]


def load(path):
    recs = [json.loads(l) for l in open(path) if l.strip()]
    d = {"env": {}, "config": {}, "ceil": {}, "kernels": [], "rows": [], "compile": {}, "teilrun": {}, "done": {},
         "pairs": {}}
    for r in recs:
        k = r.pop("kind")
        if k == "env":
            d["env"] = r
        elif k == "config":
            d["config"] = r
        elif k == "ceilings":
            d["ceil"][r["stage"]] = r
        elif k == "kernel":
            d["kernels"].append(r)
        elif k == "row":
            d["rows"].append(r)
        elif k == "compile":
            d["compile"][r["kernel"]] = r
        elif k == "teilrun":
            d["teilrun"][r["kernel"]] = r
        elif k == "pair":
            d["pairs"].setdefault(r["kernel"], []).append(r)
        elif k == "done":
            d["done"] = r
    return d


def fnum(x, nd=2):
    if x is None:
        return "—"
    if x >= 1000:
        return "%.0f" % x
    if x >= 100:
        return "%.1f" % x
    if x >= 0.01 or x == 0:
        return "%.*f" % (nd, x)
    return "%.2g" % x


def fms(x):
    if x is None:
        return "—"
    return "%.3f" % x if x < 10 else "%.2f" % x if x < 1000 else "%.0f" % x


def esc(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


ROUNDS_NOTE = ("*ratio* = the median, over the rounds, of reference median / teilc median. Round 1 uses the "
               "rows of the tables below; each of the %d later rounds runs the same two programs again, back "
               "to back, with their outputs checked (`BENCH_PAIRS`), so that both sides of a ratio ran under "
               "the same load of this shared machine. *rounds* lists each round's ratio.\n")


def rounds_cell(c):
    return ", ".join("%.2f" % x for x in c.get("rounds") or []) or "—"


class Report:
    def __init__(self, d):
        self.d = d
        vals = {}
        for st in ("start", "end"):
            for k, v in d["ceil"].get(st, {}).get("values", {}).items():
                vals[k] = max(vals.get(k, 0.0), v)
        self.ceil = vals
        self.kern = {k["kernel"]: k for k in d["kernels"]}
        self.rows = {}
        for r in d["rows"]:
            self.rows.setdefault(r["kernel"], []).append(r)

    # ---------------------------------------------------------- ceilings
    def _ceil(self, name, threads):
        ts = sorted({int(k.split("/")[1]) for k in self.ceil if k.startswith(name + "/")})
        if not ts:
            return None
        t = threads if threads in ts else max([x for x in ts if x <= (threads or 1)] or ts[:1])
        return self.ceil.get("%s/%d" % (name, t))

    def peak(self, threads):
        return self._ceil("fma_avx512", threads) or self._ceil("fma_avx2", threads)

    def triad(self, threads):
        return self._ceil("stream_triad", threads)

    # ---------------------------------------------------------- per-row numbers
    def ok(self, r):
        return r.get("status") == "ok" and r.get("median")

    def gflops(self, r):
        if not self.ok(r):
            return None
        return self.kern[r["kernel"]]["flops"] / (r["median"] * 1e6)

    def pct_peak(self, r):
        g, p = self.gflops(r), self.peak(r.get("threads") or 1)
        return 100.0 * g / p if g and p else None

    def roof(self, kernel, threads):
        k = self.kern[kernel]
        p, bw = self.peak(threads), self.triad(threads)
        if not p or not bw:
            return None
        return min(p, k["flops"] / k["bytes"] * bw)

    def pct_roof(self, r):
        g, rf = self.gflops(r), self.roof(r["kernel"], r.get("threads") or 1)
        return 100.0 * g / rf if g and rf else None

    def peers(self, kernel):
        # every checked non-teilc row, @default-core included: a peer counts at its best
        return [r for r in self.rows.get(kernel, []) if r["impl"] != TEILC and self.ok(r)]

    def best_peer(self, kernel, pred=None):
        c = [r for r in self.peers(kernel) if pred is None or pred(r["impl"])]
        return min(c, key=lambda r: r["median"]) if c else None

    def teilc(self, kernel):
        for r in self.rows.get(kernel, []):
            if r["impl"] == TEILC:
                return r
        return None

    def family_best(self, kernel, pred):
        c = [r for r in self.rows.get(kernel, []) if pred(r["impl"]) and self.ok(r)]
        return min(c, key=lambda r: r["median"]) if c else None

    # ---------------------------------------------------------- sections
    def header(self, out):
        env, cfg = self.d["env"], self.d["config"]
        quick = cfg.get("quick")
        out.append("# teil bench: teilc against NumPy, OpenBLAS and naive C (float64)\n")
        if quick:
            out.append("> **QUICK SMOKE RUN (`BENCH_QUICK=1`): small sizes, %d timed run(s) per row. "
                       "These numbers are NOT for reporting**; they only show that every implementation "
                       "builds, runs and agrees with the reference. Run `make bench` for real numbers.\n"
                       % cfg.get("min_runs", 0))
        elif cfg.get("mode") == "sizes":
            out.append("> Sizes set by `BENCH_SIZES=%s` (not the issue's default sizes).\n" % cfg.get("sizes_env"))
        out.append("Produced by `make bench` (`sh bench/run.sh%s`; bench/README.md) on %s in %.0f s. "
                   "Kernels: `examples/bench/*.teil` (definitions: bench/README.md).\n" % (
                       (" " + " ".join(cfg.get("argv", []))) if cfg.get("argv") else "", env.get("date", "?"),
                       self.d["done"].get("seconds", 0)))

    def conditions(self, out):
        rows = [r for r in self.d["rows"] if r.get("bg") is not None]
        if not rows:
            return
        bgs = sorted(r["bg"] for r in rows)
        mean = sum(bgs) / len(bgs)
        ncpu = max([int(k.split("/")[1]) for k in self.ceil] or [1])
        pk, bw = self.peak(ncpu), self.triad(ncpu)
        out.append("## Measurement conditions\n")
        s = ("Background load while the rows ran (bg, vCPUs busy with other work, of %d): mean %.2f, median %.2f, "
             "range %.2f–%.2f. Measured ceilings on %d threads: FMA peak %s GFLOP/s, STREAM triad %s GB/s."
             % (ncpu, mean, bgs[len(bgs) // 2], bgs[0], bgs[-1], ncpu, fnum(pk), fnum(bw)))
        if mean > 0.3:
            s = ("**The machine was busy with other work during this run** (shared box). " + s +
                 " With other work on the CPUs, 2-thread rows (OpenMP, OpenBLAS, teilc) lose most: a "
                 "descheduled thread stalls every barrier, so absolute numbers are pessimistic and ratios between "
                 "rows are noisy (each row's bg is in the tables). Re-run `make bench` on a quiet machine for "
                 "numbers to report; the checks are valid regardless.")
        out.append(s + "\n")

    def environment(self, out):
        env = self.d["env"]
        out.append("## Environment\n")
        for k in ("cpu", "isa", "caches", "gcc", "flags", "numpy", "openblas", "threads", "inherited", "gnuplot", "teil",
                  "teilc", "runs"):
            if env.get(k):
                out.append("- **%s**: %s" % (k, esc(env[k])))
        cores = {}
        for r in self.d["rows"]:
            info = r.get("info") or {}
            for key, src in (("openblas_core", "bench/blas.c"), ("numpy_blas", "NumPy")):
                if key in info:
                    tag = src + (" (OPENBLAS_CORETYPE unset)" if "@" in r["impl"] else "")
                    cores.setdefault(tag, set()).add(info[key])
        if cores:
            out.append("- **BLAS kernel that ran** (`openblas_get_corename()`): " + "; ".join(
                "%s: %s" % (k, ", ".join(sorted(v))) for k, v in sorted(cores.items())))
        out.append("")

    def ceilings(self, out):
        out.append("## Machine ceilings (measured)\n")
        out.append("`bench/ceilings.c`: AVX-512 (and AVX2) FMA throughput loops with 24 (12) independent "
                   "accumulators; STREAM copy and triad (STREAM byte counting); clock from a dependent imul "
                   "chain. Measured at the start and at the end of the run; the larger value is the ceiling.\n")
        out.append("| metric | threads | start | end | unit |")
        out.append("|---|---:|---:|---:|---|")
        st = self.d["ceil"].get("start", {}).get("values", {})
        en = self.d["ceil"].get("end", {}).get("values", {})
        units = {"fma": "GFLOP/s", "stream": "GB/s", "clock": "GHz"}
        for k in sorted(set(st) | set(en)):
            name, t = k.split("/")
            out.append("| %s | %s | %s | %s | %s |" % (name, t, fnum(st.get(k)), fnum(en.get(k)),
                                                       units.get(name.split("_")[0], "")))
        nt = max([int(k.split("/")[1]) for k in self.ceil] or [1])
        if self.peak(nt) and self.triad(nt):
            out.append("\nRoofline on %d threads: min(%.0f GFLOP/s, AI × %.1f GB/s); ridge point %.1f flop/byte. "
                       "%%peak uses the FMA peak for the row's thread count, %%roof the roofline for it (it can "
                       "exceed 100 %% for bandwidth-bound kernels: STREAM triad is not the exact attainable "
                       "bandwidth)." % (nt, self.peak(nt), self.triad(nt), self.peak(nt) / self.triad(nt)))
        out.append("")

    def target_cell(self, kname):
        k = self.kern[kname]
        tg = k.get("target")
        if not tg:
            return None
        against, ratio, gfl = tg
        t = self.teilc(kname)
        if against == "best":
            ref, what = self.best_peer(kname), "best peer"
        elif against == "openblas":
            ref, what = self.best_peer(kname, lambda i: i.startswith("openblas")), "OpenBLAS"
        else:
            ref, what = self.best_peer(kname, lambda i: i == against), against
        res = dict(target="≥ %s against %s" % (("%.2f" % ratio).rstrip("0").rstrip(".") if ratio != int(ratio)
                                                else "%.1f" % ratio, what) + (" (≥ %g GFLOP/s)" % gfl if gfl else ""),
                   ref=ref, teilc=t, ratio=None)
        if t is not None and t.get("status") == "FAILED":
            res["verdict"] = "**FAILED** (teilc's output is wrong: %s)" % esc(t.get("check"))
        elif t is None or t.get("status") != "ok":
            why = "teilc row missing" if t is None else t.get("error") or t.get("status")
            res["verdict"] = "**NOT MEASURED** (%s)" % esc(why)
        elif ref is None:
            res["verdict"] = "**NOT MEASURED** (no checked %s row)" % what
        else:
            # round 1: the rows themselves; later rounds: the same two programs run again
            # back to back (bench.py, BENCH_PAIRS); the ratio is the median over the rounds
            rounds = [ref["median"] / t["median"]]
            for pr in self.d["pairs"].get(kname, []):
                a, b = pr["ref"], pr["teilc"]
                if pr["ref_impl"] == ref["impl"] and a["status"] == b["status"] == "ok" and a["median"] and b["median"]:
                    rounds.append(a["median"] / b["median"])
            res["rounds"] = rounds
            res["ratio"] = statistics.median(rounds)
            met = res["ratio"] >= ratio
            v = "MET" if met else "**MISSED**"
            if gfl:
                g = self.gflops(t)
                v += "; %.1f GFLOP/s %s" % (g, "≥ %g: MET" % gfl if g >= gfl else "< %g: **MISSED**" % gfl)
            res["verdict"] = v
        if ref is not None and t is not None:     # the largest ratio the machine's roofline allows
            rf, g = self.roof(kname, t.get("threads") or 1), self.gflops(ref)
            res["bound"] = rf / g if rf and g else None
        return res

    def targets(self, out):
        main = [k for k in self.d["kernels"] if k["group"] == "main" and k.get("target")]
        if not main:
            return
        out.append("## Targets of issue 5 (teilc default schedule; ratio = reference median / teilc median)\n")
        out.append("*roof allows* = the ratio teilc would reach at the roofline (min(FMA peak, AI × triad), "
                   "nominal FLOPs), an upper bound on what any schedule can reach on this machine when the data "
                   "comes from memory; a working set that stays partly in the last-level cache between runs "
                   "can beat it.\n")
        out.append(ROUNDS_NOTE % self.d["config"].get("pairs", 0))
        out.append("| kernel | size | target | reference row | ref. median ms | teilc median ms | teilc GFLOP/s | "
                   "ratio | rounds | verdict | roof allows | bg ref / teilc |")
        out.append("|---|---|---|---|---:|---:|---:|---:|---|---|---:|---|")
        for k in main:
            c = self.target_cell(k["kernel"])
            t, ref = c["teilc"], c["ref"]
            bg = "%s / %s" % ("%.2f" % ref["bg"] if ref and ref.get("bg") is not None else "—",
                              "%.2f" % t["bg"] if t and t.get("bg") is not None else "—")
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k["kernel"], self.size(k), c["target"], ref["impl"] if ref else "—",
                fms(ref["median"]) if ref else "—", fms(t.get("median")) if t and t.get("status") == "ok" else "—",
                fnum(self.gflops(t)) if t else "—", "%.2f" % c["ratio"] if c["ratio"] is not None else "—",
                rounds_cell(c), c["verdict"], "%.2f" % c["bound"] if c.get("bound") else "—", bg))
        out.append("")

    def size(self, k):
        return " ".join("%s=%d" % (p, k["sizes"][p]) for p in k["params"])

    def table(self, out, group):
        ks = [k for k in self.d["kernels"] if k["group"] == group]
        if not ks:
            return
        if group == "main":
            out.append("## All results\n")
            out.append("Median / min / max over the timed runs (after one warm-up run) of each implementation, "
                       "in milliseconds. GFLOP/s = nominal FLOPs (bench/README.md) / median. "
                       "**best peer ÷ this** = median of the fastest checked non-teilc row / this row's median "
                       "(> 1: faster than every peer). bg = average number of vCPUs busy with other work while "
                       "the row ran (0 = quiet machine; ≈ 1 = one of two vCPUs was taken, 2-thread numbers "
                       "suspect). check = output against the reference (the c-naive-seq output; if that row "
                       "failed, the first row that ran), every element within relative 1e-9 (floor 1e-4 of the "
                       "largest |value|); a FAILED or errored row never counts.\n")
        else:
            out.append("## CFD operator sweep, all rows\n")
        out.append("| kernel | size | implementation | thr | median ms | min ms | max ms | runs | GFLOP/s | "
                   "%peak | %roof | best peer ÷ this | bg | check |")
        out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for k in ks:
            best = self.best_peer(k["kernel"])
            for r in self.rows.get(k["kernel"], []):
                name = "**teilc**" if r["impl"] == TEILC else r["impl"]
                if r.get("status") == "error":
                    out.append("| %s | %s | %s | | | | | | | | | | | **%s** |" % (
                        k["kernel"], self.size(k), name, esc(r.get("error", "error"))))
                    continue
                chk = r.get("check", "")
                if r["status"] == "ok":
                    chk = "ok" if chk in ("", "reference") or chk.startswith("max_rel") else chk
                    if r.get("check") == "reference":
                        chk = "reference"
                else:
                    chk = "**%s**: %s" % (r["status"], chk)
                if r.get("timing_note"):
                    chk += " (%s)" % r["timing_note"]
                ratio = best["median"] / r["median"] if best and self.ok(r) else None
                out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s |" % (
                    k["kernel"], self.size(k), name, r.get("threads", ""), fms(r.get("median")), fms(r.get("min")),
                    fms(r.get("max")), r.get("runs", ""), fnum(self.gflops(r)), fnum(self.pct_peak(r), 1),
                    fnum(self.pct_roof(r), 1), "%.2f" % ratio if ratio else "—", r.get("bg", 0), esc(chk)))
        out.append("")

    def cfd_summary(self, out):
        ks = [k for k in self.d["kernels"] if k["group"] == "cfd"]
        if not ks:
            return
        out.append("## CFD operator (A⊗A⊗A)u for n = 4..13\n")
        out.append("E·n³ ≈ 2²³ doubles per tensor (E below). GFLOP/s of the best checked row of each family; "
                   "ratio = best peer median / teilc median, judged against interp's target (≥ 3.0), since the "
                   "issue requires the targets for any reasonable size. teilc %roof = teilc's GFLOP/s against "
                   "the roofline; roof allows = the ratio at the roofline (as above); ratio and rounds as above.\n")
        out.append("| n | E | " + " | ".join(f for f, _ in FAMILIES) + " | best peer | ratio | rounds | vs 3.0 | "
                   "teilc %roof | roof allows |")
        out.append("|---:|---:|" + "---:|" * len(FAMILIES) + "---|---:|---|---|---:|---:|")
        for k in ks:
            cells = []
            for _, pred in FAMILIES:
                b = self.family_best(k["kernel"], pred)
                cells.append(fnum(self.gflops(b)) if b else "—")
            c = self.target_cell(k["kernel"])
            ref = c["ref"]
            v = c["verdict"].split(";")[0]
            t = c["teilc"]
            out.append("| %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                k["sizes"]["n"], k["sizes"]["E"], " | ".join(cells), ref["impl"] if ref else "—",
                "%.2f" % c["ratio"] if c["ratio"] is not None else "—", rounds_cell(c), v,
                fnum(self.pct_roof(t), 1) if t and self.ok(t) else "—", "%.2f" % c["bound"] if c.get("bound") else "—"))
        out.append("")

    def compile_times(self, out):
        if not self.d["compile"]:
            return
        out.append("## teilc's own compile time\n")
        out.append("The command `teilc K.teil -o K.c --main` (C compiler excluded), %d invocations per kernel: "
                   "wall time from process start to exit, and CPU time (user + system, from the process's "
                   "rusage), median (min–max); target < 10 ms, judged on both. On a busy machine (bg column) the "
                   "wall time includes waiting for a CPU; the CPU time does not. gcc = the C compiler on the "
                   "generated file (`gcc -O3 -march=native -fopenmp`), for information.\n"
                   % self.d["config"].get("teilc_reps", 0))
        out.append("| kernel | wall ms | < 10 ms (wall) | CPU ms | < 10 ms (CPU) | gcc s | lines of C | note |")
        out.append("|---|---:|---|---:|---|---:|---:|---|")

        def cell(t):
            if not t:
                return "—", "—"
            return "%.1f (%.1f–%.1f)" % (t["median"], t["min"], t["max"]), \
                "MET" if t["median"] < 10 else "**MISSED**"
        for k in self.d["kernels"]:
            c = self.d["compile"].get(k["kernel"])
            if not c:
                continue
            t = c.get("teilc_ms")
            w, wv = cell(t)
            cp, cv = cell(t.get("cpu") if t else None)
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k["kernel"], w, wv, cp, cv,
                "%.2f" % c["gcc_s"] if c.get("gcc_s") else "—", c.get("c_lines", "—"),
                esc(c.get("error") or "; ".join(c.get("warnings") or []))))
        out.append("")

    def teilrun(self, out):
        if not self.d["teilrun"]:
            return
        out.append("## The TeIL programs on the reference interpreter\n")
        out.append("`teil-run K.teil` on the same inputs, checked against the reference: this validates the "
                   "TeIL text of each kernel (layouts, transpositions) independently of teilc.\n")
        out.append("| kernel | status | detail |")
        out.append("|---|---|---|")
        for k in self.d["kernels"]:
            t = self.d["teilrun"].get(k["kernel"])
            if t:
                out.append("| %s | %s | %s |" % (k["kernel"], t["status"] if t["status"] == "ok" else
                                                 "**%s**" % t["status"], esc(t["check"])))
        out.append("")

    def notes(self, out):
        out.append("## How to read this\n")
        out.append("- Every implementation reads the same deterministic `.npy` inputs (`bench/gen.c`, the peers' "
                   "generator) and writes its output, which is compared element by element with the "
                   "reference output (`bench/npycheck.c`) before its time is used.\n"
                   "- teilc rows: `teilc K.teil -o K.c --main`, `gcc -O3 -march=native -fopenmp`, then the "
                   "generated driver with `--repeat N+1`; the first run is the warm-up. Per-run times come from "
                   "the driver's own clock readings (bench/teilc_clock.h).\n"
                   "- The machine is shared: look at the bg column. Ratios are computed from rows measured "
                   "back to back within the same kernel.\n")

    def render(self):
        out = []
        self.header(out)
        self.conditions(out)
        self.targets(out)
        self.cfd_summary(out)
        self.compile_times(out)
        out.append("![GFLOP/s per kernel and implementation](%s)\n" % self.png_name)
        self.environment(out)
        self.ceilings(out)
        self.table(out, "main")
        self.table(out, "cfd")
        self.teilrun(out)
        self.notes(out)
        return "\n".join(out) + "\n"

    # ---------------------------------------------------------- plot
    def plot(self, png, workdir):
        main = [k for k in self.d["kernels"] if k["group"] == "main"]
        cfd = [k for k in self.d["kernels"] if k["group"] == "cfd"]
        if not main and not cfd:
            return "nothing to plot"
        os.makedirs(workdir, exist_ok=True)
        dat1, dat2 = os.path.join(workdir, "plot_main.dat"), os.path.join(workdir, "plot_cfd.dat")

        def line(label, k):
            v = []
            for _, pred in FAMILIES:
                b = self.family_best(k["kernel"], pred)
                g = self.gflops(b) if b else None
                v.append("%.4g" % g if g else "?")
            return "%s %s\n" % (label, " ".join(v))

        with open(dat1, "w") as f:
            f.write("kernel " + " ".join('"%s"' % n for n, _ in FAMILIES) + "\n")
            for k in main:
                f.write(line(k["kernel"], k))
        with open(dat2, "w") as f:
            f.write("n " + " ".join('"%s"' % n for n, _ in FAMILIES) + "\n")
            for k in cfd:
                f.write(line(str(k["sizes"]["n"]), k))
        nt = max([int(x.split("/")[1]) for x in self.ceil] or [1])
        pk = self.peak(nt)
        bgs = [x["bg"] for x in self.d["rows"] if x.get("bg") is not None]
        busy = sum(bgs) / len(bgs) if bgs else 0.0
        title = "teil bench%s%s" % (" (QUICK smoke run: not for reporting)" if self.d["config"].get("quick") else "",
                                    " (busy machine: mean background load %.1f vCPUs)" % busy if busy > 0.3 else "")
        panels = (1 if main else 0) + (1 if cfd else 0)
        gp = ["set encoding utf8", "set terminal pngcairo size 1200,%d font 'sans,10'" % (450 * panels + 30),
              "set output '%s'" % png, "set datafile missing '?'", "set key outside right top",
              "set logscale y", "set grid ytics", "set ylabel 'GFLOP/s (log scale)'",
              "set multiplot layout %d,1 title '%s'" % (panels, title)]
        if main:
            gp += ["set title 'GFLOP/s per kernel (best checked row of each implementation family)%s'" %
                   (", FMA peak %.0f" % pk if pk else ""),
                   "set style data histograms", "set style histogram clustered gap 1",
                   "set style fill solid 0.85 border -1", "set boxwidth 0.9", "set xtics nomirror",
                   "set yrange [*:*]"]
            if pk:
                gp.append("set yrange [*:%g]" % (pk * 2))
                gp.append("set arrow 1 from graph 0, first %g to graph 1, first %g nohead dt 2 lc rgb 'red'" % (pk, pk))
            gp.append("plot " + ", ".join("'%s' using %d:xtic(1) title columnhead" % (dat1, i + 2)
                                          for i in range(len(FAMILIES))))
            gp += ["unset arrow 1", "unset style", "set style data linespoints"]
        if cfd:
            tot = cfd[0]["sizes"]["E"] * cfd[0]["sizes"]["n"] ** 3
            gp += ["set title 'CFD operator (A⊗A⊗A)u, E·n³ ≈ 2^{%d} doubles per tensor: GFLOP/s against n'"
                   % round(math.log2(tot)), "set xlabel 'n'",
                   "set autoscale", "set logscale y", "set xtics 1"]
            gp.append("plot " + ", ".join("'%s' using 1:%d with linespoints lw 2 title columnhead" % (dat2, i + 2)
                                          for i in range(len(FAMILIES))))
        gp.append("unset multiplot")
        script = os.path.join(workdir, "plot.gp")
        with open(script, "w") as f:
            f.write("\n".join(gp) + "\n")
        try:
            r = subprocess.run(["gnuplot", script], capture_output=True, text=True, timeout=120)
        except OSError:
            return "gnuplot not installed (Debian gnuplot-nox)"
        if r.returncode != 0:
            return "gnuplot failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]
        return None


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: report.py RAW.jsonl OUT.md")
    d = load(argv[1])
    rep = Report(d)
    png = os.path.splitext(argv[2])[0] + ".png"
    rep.png_name = os.path.basename(png)
    err = rep.plot(png, os.path.dirname(os.path.abspath(argv[1])))
    text = rep.render()
    if err:
        text = text.replace("![GFLOP/s per kernel and implementation](%s)\n" % rep.png_name,
                            "(no plot: %s)\n" % err)
        print("report: " + err, file=sys.stderr)
    with open(argv[2], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv)
