"""The driver of `make bench` (started by bench/run.sh): builds and runs every
implementation of every kernel side by side, checks each output against the
reference, and writes the raw records (build/bench/MODE/raw.jsonl) from which
bench/report.py makes results.md and results.png.

    python3 bench/bench.py [KERNEL ...]      (KERNEL: a name, 'main' or 'cfd')

Environment (see bench/README.md): BENCH_QUICK, BENCH_SIZES, BENCH_MIN_RUNS,
BENCH_MAX_RUNS, BENCH_TARGET_SEC, BENCH_QUIET_WAIT, BENCH_TIMEOUT, BENCH_PAIRS, BENCH_RESULTS,
BENCH_KEEP, BENCH_INTERP, TEILC, OPENBLAS_CORETYPE, OMP_NUM_THREADS.
Standard library only; the NumPy rows run under /usr/bin/python3.
"""
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, HERE)
import kernels as K  # noqa: E402

ENV = os.environ
QUICK = ENV.get("BENCH_QUICK", "") not in ("", "0")
OVERRIDES = K.parse_overrides(ENV.get("BENCH_SIZES", ""))
MODE = "quick" if QUICK else ("sizes" if OVERRIDES else "full")
BIN = os.path.join(ROOT, "build", "bench", "bin")
WORK = os.path.join(ROOT, "build", "bench", MODE)
NUMPY_PY = "/usr/bin/python3"
OBINC = "/usr/include/x86_64-linux-gnu/openblas-pthread"
TEILC = ENV.get("TEILC") or os.path.join(ROOT, "build", "bin", "teilc")
TEILCHECK = os.path.join(ROOT, "build", "bin", "teil-check")
TEILRUN = os.path.join(ROOT, "build", "bin", "teil-run")
CFLAGS = ["-O3", "-march=native"]


def envint(name, default):
    v = ENV.get(name, "")
    return int(v) if v.strip() else default


MIN_RUNS = envint("BENCH_MIN_RUNS", 2 if QUICK else 5)
MAX_RUNS = max(MIN_RUNS, envint("BENCH_MAX_RUNS", 2 if QUICK else 30))
TARGET_SEC = float(ENV.get("BENCH_TARGET_SEC") or (0.0 if QUICK else 1.0))
QUIET_WAIT = float(ENV.get("BENCH_QUIET_WAIT") or (0 if QUICK else 10))
TIMEOUT = float(ENV.get("BENCH_TIMEOUT") or (60 if QUICK else 900))
TEILC_REPS = 3 if QUICK else 7  # teilc invocations timed per kernel (median reported)
PAIRS = envint("BENCH_PAIRS", 0 if QUICK else 4)  # extra rounds of reference row and teilc, back to back
# the C and NumPy programs read the run policy from the environment (bench/harness.h)
ENV["BENCH_MIN_RUNS"], ENV["BENCH_MAX_RUNS"], ENV["BENCH_TARGET_SEC"] = str(MIN_RUNS), str(MAX_RUNS), str(TARGET_SEC)

RAW = None


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def record(kind, **kw):
    kw["kind"] = kind
    RAW.write(json.dumps(kw) + "\n")
    RAW.flush()
    return kw


# ------------------------------------------------------------------ machine load
def machine_busy_sec():
    """CPU-seconds all CPUs spent busy (user nice system irq softirq steal)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def children_cpu_sec():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def busy_now(window=1.0):
    a = machine_busy_sec()
    time.sleep(window)
    return (machine_busy_sec() - a) / window


def quiet_wait(limit):
    """Wait up to `limit` s until other load < 0.3 vCPU; -> (waited s, last load)."""
    if limit <= 0:
        return 0.0, None
    t0 = time.time()
    load = busy_now()
    while load >= 0.3 and time.time() - t0 < limit:
        load = busy_now()
    return time.time() - t0, load


# ------------------------------------------------------------------ processes
def run(cmd, env=None, timeout=None, cwd=ROOT):
    """Run cmd; -> dict(rc, out, err, wall, bg). bg = average number of vCPUs busy
    with work other than this command while it ran (other processes, steal)."""
    e = dict(ENV)
    if env:
        for k, v in env.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
    m0, c0, t0 = machine_busy_sec(), children_cpu_sec(), time.perf_counter()
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, cwd=cwd,
                             start_new_session=True, text=True, errors="replace")
    except OSError as ex:
        return dict(rc=127, out="", err=str(ex), wall=0.0, cpu=0.0, bg=0.0)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = "timeout"
    wall = time.perf_counter() - t0
    cpu = children_cpu_sec() - c0
    fg = (machine_busy_sec() - m0) - cpu
    return dict(rc=rc, out=out, err=err, wall=wall, cpu=cpu, bg=max(0.0, fg / wall) if wall > 0 else 0.0)


def first_error(r, what):
    if r["rc"] == "timeout":
        return "%s: timeout" % what
    lines = [l for l in (r["err"] or "").splitlines() if l.strip() and not l.startswith("bench_clock")]
    msg = lines[0] if lines else "exit status %s" % r["rc"]
    if isinstance(r["rc"], int) and r["rc"] < 0:
        msg = "killed by signal %d" % -r["rc"]
    if msg.startswith(what + ":"):
        return msg[:220]
    return "%s: %s" % (what, msg[:200])


def parse_timing(out):
    """time_ms/runs_ms/info lines of the harness protocol."""
    res = {"info": {}}
    for line in out.splitlines():
        if line.startswith("time_ms "):
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                res[k] = float(v) if k != "runs" else int(v)
        elif line.startswith("runs_ms "):
            res["runs_ms"] = [float(x) for x in line.split()[1:]]
        elif line.startswith("info "):
            parts = line.split()[1:]
            for i in range(0, len(parts) - 1, 2):
                res["info"][parts[i]] = parts[i + 1]
    return res


def stats(ms):
    s = sorted(ms)
    n = len(s)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return dict(median=med, min=s[0], max=s[-1], runs=n, runs_ms=ms)


# ------------------------------------------------------------------ build
def newer(target, sources):
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(s) > t for s in sources)


def build_tools(have_blas):
    """Compiles the bench's own C programs (in parallel; only what changed)."""
    os.makedirs(BIN, exist_ok=True)
    h = [os.path.join(HERE, "harness.h")]
    jobs = []

    def add(out, srcs, flags, libs=("-lm",), deps=()):
        out = os.path.join(BIN, out)
        if newer(out, list(srcs) + h + list(deps)):
            jobs.append((out, ["gcc"] + flags + ["-Wall", "-Wextra", "-Wno-unknown-pragmas", "-o", out]
                         + list(srcs) + list(libs)))

    add("gen", [os.path.join(HERE, "gen.c")], ["-O2"])
    add("npycheck", [os.path.join(HERE, "npycheck.c")], ["-O2"])
    add("ceilings", [os.path.join(HERE, "ceilings.c")], ["-O2", "-march=native", "-fopenmp"])
    for k in ("mm", "tmm", "bmm", "mttkrp", "sddmm", "interp", "helm", "coars"):
        src = os.path.join(HERE, "naive", k + ".c")
        tp = [os.path.join(HERE, "naive", "tp3.h")]
        add("naive-seq-" + k, [src], CFLAGS, deps=tp)
        add("naive-omp-" + k, [src], CFLAGS + ["-fopenmp"], deps=tp)
    if have_blas:
        add("blas", [os.path.join(HERE, "blas.c")], CFLAGS + ["-fopenmp", "-I" + OBINC],
            libs=("-lopenblas", "-lm"))
    failed, running = [], []

    def wait(job):
        o, p = job
        txt = p.communicate()[0]
        if p.returncode != 0:
            failed.append((o, txt.strip().splitlines()[:3]))
            if os.path.exists(o):
                os.remove(o)

    for out, cmd in jobs:
        while len(running) >= max(1, os.cpu_count() or 1):
            wait(running.pop(0))
        running.append((out, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for job in running:
        wait(job)
    for o, txt in failed:
        log("bench: building %s failed: %s" % (o, " / ".join(txt)))
    return {os.path.basename(o) for o, _ in failed}


# ------------------------------------------------------------------ environment
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return ""


def environment(numpy_ok, have_blas):
    cpu = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            k, _, v = line.partition(":")
            k = k.strip()
            if k in ("model name", "cpu family", "model", "flags") and k not in cpu:
                cpu[k] = v.strip()
    flags = cpu.get("flags", "").split()
    caches = sh("lscpu | grep -E '^L[123]' | sed 's/  */ /g' | tr '\\n' ';'")
    mem = sh("awk '/MemTotal/ {printf \"%.0f\", $2/1048576}' /proc/meminfo")
    info = {
        "date": time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()),
        "mode": MODE,
        "cpu": "%s (family %s model %s), %d vCPUs, %s GiB" % (cpu.get("model name", "?"), cpu.get("cpu family", "?"),
                                                           cpu.get("model", "?"), os.cpu_count(), mem),
        "isa": " ".join(f for f in flags if f in ("avx2", "fma", "avx512f", "avx512dq", "avx512vl")),
        "caches": caches.strip(";"),
        "gcc": sh("gcc --version | head -1"),
        "flags": "teilc, naive C, OpenBLAS peers: gcc %s [-fopenmp]" % " ".join(CFLAGS),
        "numpy": (sh(NUMPY_PY + " -c 'import numpy; print(numpy.__version__)'") + " (Debian python3-numpy, "
                  + NUMPY_PY + ")") if numpy_ok else "not installed (python3-numpy)",
        "openblas": ("%s (libopenblas0-pthread), libblas.so.3 -> %s" % (
            sh("dpkg-query -W -f='${Version}' libopenblas0-pthread 2>/dev/null") or "?",
            os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3"))) if have_blas
        else "not installed (libopenblas-dev)",
        "gnuplot": sh("gnuplot --version") or "not installed (gnuplot-nox)",
        "threads": "OMP_NUM_THREADS=%s OPENBLAS_NUM_THREADS=%s OPENBLAS_CORETYPE=%s" % (
            ENV.get("OMP_NUM_THREADS"), ENV.get("OPENBLAS_NUM_THREADS"), ENV.get("OPENBLAS_CORETYPE", "(unset)")),
        "inherited": ENV.get("BENCH_INHERITED_ENV", "").strip() or "(none)",
        "teil": sh("cd '%s' && git rev-parse --short HEAD" % ROOT) + (
            " (src/ modified)" if sh("cd '%s' && git status --porcelain -- src" % ROOT) else ""),
        "teilc": TEILC if os.access(TEILC, os.X_OK) else "not built (%s)" % TEILC,
        "runs": "1 warm-up, then >= %d timed runs (more, up to %d, until %.1f s were spent)" % (
            MIN_RUNS, MAX_RUNS, TARGET_SEC),
    }
    return info


def ceilings(stage):
    r = run([os.path.join(BIN, "ceilings")], timeout=600)
    vals = {}
    for line in r["out"].splitlines():
        p = line.split()
        if len(p) == 5 and p[0] == "ceiling":
            vals["%s/%s" % (p[1], p[2])] = float(p[3])
    record("ceilings", stage=stage, values=vals, bg=r["bg"], error=None if r["rc"] == 0 else first_error(r, "ceilings"))
    log("bench: ceilings (%s): %s" % (stage, ", ".join("%s %.1f" % kv for kv in sorted(vals.items()))))
    return vals


# ------------------------------------------------------------------ inputs
def input_path(name, shape, seed):
    tag = "x".join(str(d) for d in shape) if shape else "scalar"
    s = "c%g" % seed[1] if isinstance(seed, tuple) else "s%d" % seed
    return os.path.join(ROOT, "build", "bench", "in", "%s_%s_%s.npy" % (name, tag, s))


def make_inputs(kern, p):
    """-> {name: path}; generates missing files with bench/gen.c (deterministic)."""
    res = {}
    for name, role, shape, seed in kern.tensors(p):
        if role != "in":
            continue
        path = input_path(name, shape, seed)
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = path + ".tmp"
            arg = ["=%r" % seed[1]] if isinstance(seed, tuple) else [str(seed)] + [str(d) for d in shape]
            r = run([os.path.join(BIN, "gen"), tmp] + arg, timeout=600)
            if r["rc"] != 0:
                raise SystemExit("bench: " + first_error(r, "gen " + path))
            os.replace(tmp, path)
        res[name] = path
    return res


# ------------------------------------------------------------------ one kernel
class KernelRun:
    def __init__(self, kern, p, teil_path):
        self.k, self.p, self.teil = kern, p, teil_path
        self.outdir = os.path.join(WORK, "out", kern.name)
        os.makedirs(self.outdir, exist_ok=True)
        self.inputs = make_inputs(kern, p)
        self.out_name = [t[0] for t in kern.tensors(p) if t[1] == "out"][0]
        self.ref = None       # path of the reference output
        self.ref_impl = None
        self.family = "interp" if kern.group == "cfd" else kern.name  # naive/blas/numpy program
        self.cmds = {}        # impl -> (cmd, env, timing, threads), to run it again in a paired round
        self.last = {}        # impl -> its row's record

    def io_args(self, out_path):
        a = []
        for name, path in self.inputs.items():
            a += ["--in", "%s=%s" % (name, path)]
        return a + ["--out", "%s=%s" % (self.out_name, out_path)]

    def check(self, out_path):
        if self.ref is None:
            return "ok", "reference"
        r = run([os.path.join(BIN, "npycheck"), self.ref, out_path], timeout=600)
        line = (r["out"].strip().splitlines() or [""])[-1]
        if r["rc"] == 0 and line.startswith("check ok"):
            return "ok", line[len("check ok "):]
        if line.startswith("check FAILED"):
            return "FAILED", line[len("check FAILED "):]
        return "FAILED", first_error(r, "npycheck")

    def row(self, impl, cmd, threads=None, env=None, timing=None, note=None, keep_as_ref=False):
        """Runs one implementation, checks its output, records the row."""
        out = os.path.join(self.outdir, impl.replace("@", "_") + ".npy")
        if os.path.exists(out):
            os.remove(out)
        self.cmds[impl] = (cmd, env, timing, threads)
        r = run(cmd, env=env, timeout=TIMEOUT)
        rec = dict(kernel=self.k.name, impl=impl, threads=threads, sizes=self.p, note=note)
        self.last[impl] = rec
        if r["rc"] != 0:
            rec.update(status="error", error=first_error(r, impl))
            log("bench:   %-22s %s" % (impl, rec["error"]))
            return record("row", **rec)
        t = timing(r) if timing else parse_timing(r["out"])
        if "median" not in t:
            rec.update(status="error", error="%s: no time_ms line in its output" % impl)
            return record("row", **rec)
        info = t.get("info", {})
        if rec["threads"] is None:
            rec["threads"] = int(info.get("threads", 1))
        rec.update({k: t[k] for k in ("median", "min", "max", "runs", "runs_ms") if k in t})
        rec["info"] = info
        rec["bg"] = r["bg"]
        if "timing_note" in t:
            rec["timing_note"] = t["timing_note"]
        if not os.path.exists(out):
            rec.update(status="FAILED", check="no output written")
        else:
            st, detail = self.check(out)
            rec.update(status=st, check=detail)
            if self.ref is None and st == "ok":
                # the first implementation that ran becomes the reference
                self.ref, self.ref_impl = os.path.join(self.outdir, "reference.npy"), impl
                shutil.copyfile(out, self.ref)
                rec["check"] = "reference"
            if not ENV.get("BENCH_KEEP"):
                os.remove(out)
        rec["ref_impl"] = self.ref_impl
        log("bench:   %-22s %s median %.3f ms (min %.3f max %.3f, %d runs) bg %.2f %s" % (
            impl, rec["status"], rec["median"], rec.get("min", 0), rec.get("max", 0), rec.get("runs", 0),
            rec["bg"], "" if rec["status"] == "ok" else rec.get("check", "")))
        return record("row", **rec)

    def target_ref(self):
        """The row the target compares teilc with, as bench/report.py picks it: the
        fastest checked peer (of the named family or program, if the target says)."""
        if not self.k.target:
            return None
        against = self.k.target[0]
        ok = [r for i, r in self.last.items() if i != "teilc" and r.get("status") == "ok" and r.get("median")]
        if against == "openblas":
            ok = [r for r in ok if r["impl"].startswith("openblas")]
        elif against != "best":
            ok = [r for r in ok if r["impl"] == against]
        return min(ok, key=lambda r: r["median"])["impl"] if ok else None

    def pairs(self, rounds):
        """Runs the target's reference row and teilc again, back to back, `rounds`
        times (the order alternates, teilc first in round 1); each output is checked
        as in row(). A paired ratio compares two runs made under the same machine
        load, which a run minutes apart on a shared machine is not."""
        t = self.last.get("teilc")
        ref = self.target_ref()
        if not rounds or ref is None or t is None or t.get("status") != "ok":
            return
        for i in range(1, rounds + 1):
            got = {}
            for impl in (("teilc", ref) if i % 2 else (ref, "teilc")):
                cmd, env, timing, threads = self.cmds[impl]
                out = os.path.join(self.outdir, impl.replace("@", "_") + ".npy")
                if os.path.exists(out):
                    os.remove(out)
                r = run(cmd, env=env, timeout=TIMEOUT)
                tm = (timing(r) if timing else parse_timing(r["out"])) if r["rc"] == 0 else {}
                st = "error" if "median" not in tm else ("FAILED" if not os.path.exists(out) else self.check(out)[0])
                if os.path.exists(out) and not ENV.get("BENCH_KEEP"):
                    os.remove(out)
                got[impl] = dict(status=st, median=tm.get("median"), bg=r["bg"])
            record("pair", kernel=self.k.name, round=i, ref_impl=ref, ref=got[ref], teilc=got["teilc"])
            ok = all(g["status"] == "ok" for g in got.values())
            log("bench:   pair %d: %-16s %s ms, teilc %s ms%s" % (
                i, ref, "%.3f" % got[ref]["median"] if got[ref]["median"] else "-",
                "%.3f" % got["teilc"]["median"] if got["teilc"]["median"] else "-",
                ", ratio %.2f" % (got[ref]["median"] / got["teilc"]["median"]) if ok else " (not counted)"))


def teilc_timing(r):
    """Timing of a teilc --main driver run with --repeat R: the first run is the
    warm-up; per-run times from the bench_clock line (teilc_clock.h) when it is
    consistent with the driver's own time_ms line."""
    t = parse_timing(r["out"])
    if "median" not in t:
        return t
    runs = int(t.get("runs", 1))
    m = re.search(r"^bench_clock (\d+)((?: \d+)*)$", r["err"] or "", re.M)
    ms = None
    if m and int(m.group(1)) == 2 * runs:
        ns = [int(x) for x in m.group(2).split()]
        ms = [(ns[2 * i + 1] - ns[2 * i]) * 1e-6 for i in range(runs)]
        if abs(stats(ms)["median"] - t["median"]) > 0.01 * t["median"] + 1e-3:
            ms = None
    if ms is not None and len(ms) >= 2:
        res = stats(ms[1:])  # drop the warm-up run
        res["info"] = t.get("info", {})
        return res
    t["timing_note"] = ("driver's median/min over all %d runs, first (cold) run included; no max" % runs)
    return t


def bench_kernel(kern, p, teil_path, have_blas, numpy_ok, broken_tools, compiled):
    log("bench: == %s (%s)" % (kern.name, kern.size_str(p)))
    waited, load = quiet_wait(QUIET_WAIT)
    record("kernel", kernel=kern.name, group=kern.group, sizes=p, params=list(kern.params),
           flops=kern.flops(p), bytes=kern.nbytes(p), target=kern.target, teil=os.path.relpath(teil_path, ROOT),
           quiet_waited=waited, load_before=load)
    kr = KernelRun(kern, p, teil_path)
    fam = kr.family
    # naive C: the sequential one is the reference
    for variant in ("seq", "omp"):
        exe = os.path.join(BIN, "naive-%s-%s" % (variant, fam))
        impl = "c-naive-" + variant
        if os.path.basename(exe) in broken_tools or not os.path.exists(exe):
            record("row", kernel=kern.name, impl=impl, status="error", error="%s: not built" % impl)
            continue
        kr.row(impl, [exe] + kr.io_args(os.path.join(kr.outdir, impl + ".npy")))
    # the TeIL program itself, on the reference interpreter (quick mode / BENCH_INTERP=1)
    if QUICK or ENV.get("BENCH_INTERP"):
        out = os.path.join(kr.outdir, "teil-run.npy")
        cmd = [TEILRUN, teil_path]
        for name, path in kr.inputs.items():
            cmd += ["--in", "%s=%s" % (name, path)]
        cmd += ["--out", "%s=%s" % (kr.out_name, out)]
        r = run(cmd, timeout=TIMEOUT)
        if r["rc"] != 0:
            st, detail = "error", first_error(r, "teil-run")
        elif kr.ref is None:
            st, detail = "error", "no reference output"
        else:
            st, detail = kr.check(out)
        record("teilrun", kernel=kern.name, status=st, check=detail, wall=r["wall"])
        log("bench:   %-22s %s %s" % ("teil-run (interpreter)", st, detail))
    # OpenBLAS
    for v in kern.blas:
        impl = v
        if not have_blas or "blas" in broken_tools:
            record("row", kernel=kern.name, impl=impl, status="error",
                   error="openblas: not available (libopenblas-dev not installed)")
            continue
        base = v.split("@")[0]
        env = {"OPENBLAS_CORETYPE": None} if v.endswith("@default-core") else None
        kr.row(impl, [os.path.join(BIN, "blas"), "%s:%s" % (fam, base)] +
               kr.io_args(os.path.join(kr.outdir, impl.replace("@", "_") + ".npy")), env=env,
               note="OpenBLAS's own CPU detection (OPENBLAS_CORETYPE unset)" if env else None)
    # NumPy
    for v in kern.numpy:
        if not numpy_ok:
            record("row", kernel=kern.name, impl=v, status="error",
                   error="numpy: not available (python3-numpy for %s)" % NUMPY_PY)
            continue
        kr.row(v, [NUMPY_PY, os.path.join(HERE, "np_impls.py"), "%s:%s" % (fam, v)] +
               kr.io_args(os.path.join(kr.outdir, v + ".npy")))
    # teilc, default schedule
    bench_teilc(kr, compiled)
    kr.pairs(PAIRS)


def compile_all(sel, paths):
    """teilc on every kernel (its own time measured here, one kernel after the other,
    before any timing starts), then gcc on the generated C (parallel jobs).
    -> {kernel: (executable or None, error or None)}"""
    d = os.path.join(WORK, "teilc")
    os.makedirs(d, exist_ok=True)
    res, gcc_jobs = {}, []
    if not os.access(TEILC, os.X_OK):
        msg = "teilc: not built (%s; run make)" % (os.path.relpath(TEILC, ROOT) if TEILC.startswith(ROOT) else TEILC)
        log("bench: " + msg)
        for k in sel:
            record("compile", kernel=k.name, teilc_ms=None, gcc_s=None, error=msg)
            res[k.name] = (None, msg)
        return res
    log("bench: teilc on %d kernels (each %d times), then gcc" % (len(sel), TEILC_REPS))
    for k in sel:
        teil = paths[k.name]
        csrc, exe = os.path.join(d, k.name + ".c"), os.path.join(d, k.name)
        for f in (csrc, exe):
            if os.path.exists(f):
                os.remove(f)
        r = run([TEILCHECK, teil], timeout=120) if os.access(TEILCHECK, os.X_OK) else None
        if r is not None and r["rc"] != 0:
            res[k.name] = (None, first_error(r, "teil-check"))
            record("compile", kernel=k.name, teilc_ms=None, gcc_s=None, error=res[k.name][1])
            continue
        cmd = [TEILC, teil, "-o", csrc, "--main"]
        times, cpus, bgs, err = [], [], [], None
        for _ in range(TEILC_REPS):
            r = run(cmd, timeout=120)
            if r["rc"] != 0:
                err = first_error(r, "teilc")
                break
            times.append(r["wall"] * 1e3)
            cpus.append(r["cpu"] * 1e3)
            bgs.append(r["bg"])
        if err:
            res[k.name] = (None, err)
            record("compile", kernel=k.name, teilc_ms=None, gcc_s=None, error=err)
            log("bench:   %-8s %s" % (k.name, err))
            continue
        warn = [l for l in r["err"].splitlines() if l.strip()][:3]
        gcc = ["gcc"] + CFLAGS + ["-fopenmp", "-include", os.path.join(HERE, "teilc_clock.h"), "-o", exe, csrc,
                                  os.path.join(HERE, "teilc_clock.c"), "-lm"]
        tms = stats(times)
        tms["cpu"] = stats(cpus)
        tms["bg"] = sum(bgs) / len(bgs)
        gcc_jobs.append((k.name, exe, csrc, tms, warn, gcc))
    running = []

    def finish(job):
        (name, exe, csrc, tms, warn, _), p, t0 = job
        txt = p.communicate()[0]
        gcc_s = time.perf_counter() - t0
        if p.returncode != 0:
            lines = [l for l in txt.splitlines() if "error" in l] or txt.splitlines() or ["exit status %d" % p.returncode]
            err = "gcc on teilc's C: " + lines[0][:200]
            res[name] = (None, err)
            record("compile", kernel=name, teilc_ms=tms, gcc_s=None, error=err)
        else:
            res[name] = (exe, None)
            record("compile", kernel=name, teilc_ms=tms, gcc_s=gcc_s, error=None, warnings=warn,
                   c_lines=sum(1 for _ in open(csrc)))
        log("bench:   %-8s teilc %.1f ms (median of %d), gcc %.1f s%s" % (
            name, tms["median"], TEILC_REPS, gcc_s, "" if p.returncode == 0 else ": " + res[name][1]))

    for job in gcc_jobs:
        while len(running) >= max(1, os.cpu_count() or 1):
            finish(running.pop(0))
        running.append((job, subprocess.Popen(job[5], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
                        time.perf_counter()))
    for job in running:
        finish(job)
    return res


def bench_teilc(kr, compiled):
    name = kr.k.name
    exe, err = compiled.get(name, (None, "teilc: not run"))
    if exe is None:
        log("bench:   %-22s %s" % ("teilc", err))
        return record("row", kernel=name, impl="teilc", status="error", error=err)
    out = os.path.join(kr.outdir, "teilc.npy")
    base = [exe] + kr.io_args(out)
    reps = MIN_RUNS
    if not QUICK:  # a probe run sizes the timed runs like the harness's loop
        r = run(base + ["--repeat", "1"], timeout=TIMEOUT)
        if r["rc"] != 0:
            e = first_error(r, "teilc kernel")
            log("bench:   %-22s %s" % ("teilc", e))
            return record("row", kernel=name, impl="teilc", status="error", error=e)
        t1 = parse_timing(r["out"]).get("median")
        if t1:
            reps = int(min(MAX_RUNS, max(MIN_RUNS, math.ceil(TARGET_SEC * 1e3 / max(t1, 1e-6)))))
    threads = int(ENV.get("OMP_NUM_THREADS") or os.cpu_count())
    return kr.row("teilc", base + ["--repeat", str(reps + 1)], threads=threads, timing=teilc_timing)


# ------------------------------------------------------------------ main
def teil_files(sel):
    """Full mode at the default sizes uses examples/bench/*.teil as committed (they
    must equal bench/kernels.py's text); otherwise the files are generated."""
    if MODE == "full":
        paths = {}
        for k in sel:
            path = os.path.join(ROOT, "examples", "bench", k.name + ".teil")
            want = k.teil_text(k.sizes())
            have = open(path).read() if os.path.exists(path) else None
            if have != want:
                raise SystemExit("bench: %s is missing or differs from bench/kernels.py; regenerate with "
                                 "python3 bench/kernels.py write examples/bench" % os.path.relpath(path, ROOT))
            paths[k.name] = path
        return paths
    return K.write_teil(os.path.join(WORK, "teil"), quick=QUICK, overrides=OVERRIDES, kernels=sel)


def main(argv):
    global RAW
    sel = K.select(argv, quick=QUICK)
    os.makedirs(WORK, exist_ok=True)
    raw_path = os.path.join(WORK, "raw.jsonl")
    RAW = open(raw_path, "w")
    t_start = time.time()
    numpy_ok = os.path.exists(NUMPY_PY) and subprocess.run(
        [NUMPY_PY, "-c", "import numpy"], capture_output=True).returncode == 0
    have_blas = os.path.exists(os.path.join(OBINC, "cblas.h"))
    log("bench: mode %s, %d kernels; building the bench's C programs" % (MODE, len(sel)))
    broken = build_tools(have_blas)
    for t in ("gen", "npycheck", "ceilings"):
        if t in broken:
            raise SystemExit("bench: cannot build bench/%s.c" % t)
    record("env", **environment(numpy_ok, have_blas))
    record("config", quick=QUICK, mode=MODE, kernels=[k.name for k in sel], min_runs=MIN_RUNS, max_runs=MAX_RUNS,
           target_sec=TARGET_SEC, quiet_wait=QUIET_WAIT, timeout=TIMEOUT, teilc_reps=TEILC_REPS, pairs=PAIRS,
           argv=argv, sizes_env=ENV.get("BENCH_SIZES", ""))
    ceilings("start")
    paths = teil_files(sel)
    compiled = compile_all(sel, paths)
    for k in sel:
        p = k.sizes(QUICK, OVERRIDES.get(k.name))
        bench_kernel(k, p, paths[k.name], have_blas, numpy_ok, broken, compiled)
    if not QUICK:
        ceilings("end")
    record("done", seconds=time.time() - t_start)
    RAW.close()
    default_out = os.path.join(HERE, "results.md") if (MODE == "full" and not argv) else os.path.join(WORK, "results.md")
    out_md = ENV.get("BENCH_RESULTS") or default_out
    r = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), raw_path, out_md])
    if r.returncode != 0:
        raise SystemExit("bench: report.py failed")
    if os.path.abspath(out_md) == os.path.join(HERE, "results.md"):  # keep the raw records next to it
        shutil.copyfile(raw_path, os.path.join(HERE, "results_raw.jsonl"))
    log("bench: done in %.0f s; wrote %s" % (time.time() - t_start, os.path.relpath(out_md, ROOT)))


if __name__ == "__main__":
    main(sys.argv[1:])
