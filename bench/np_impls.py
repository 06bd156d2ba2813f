"""NumPy peers of the bench: numpy.einsum(optimize=True) and NumPy's best call per kernel.

    /usr/bin/python3 bench/np_impls.py KERNEL:IMPL --in NAME=FILE.npy ... --out NAME=FILE.npy

Runs under Debian's /usr/bin/python3 (python3-numpy; NumPy's BLAS is OpenBLAS through
libblas.so.3, so OPENBLAS_CORETYPE applies to it too). Same protocol and output lines
as bench/harness.h: one warm-up call, then BENCH_MIN_RUNS..BENCH_MAX_RUNS timed calls
(until BENCH_TARGET_SEC), "info", "runs_ms" and a last "time_ms median= min= max= runs=".
NumPy creates its outputs on every call, as it would in use.
"""
import ctypes
import os
import sys
import time

import numpy as np


def blas_info():
    """(core name, threads) of the OpenBLAS that numpy loaded, from /proc/self/maps."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "libopenblas" in line:
                    lib = ctypes.CDLL(line.split()[-1])
                    lib.openblas_get_corename.restype = ctypes.c_char_p
                    return lib.openblas_get_corename().decode(), lib.openblas_get_num_threads()
        return "not-openblas", 1
    except Exception as e:  # pragma: no cover
        return "unknown(%s)" % e, 1


def tp_matmul(M, u):
    """out[e,i,j,k] = sum M[i,l] M[j,m] M[k,n] u[e,l,m,n] with three matmuls."""
    E, n = u.shape[0], u.shape[1]
    t1 = (u.reshape(E * n * n, n) @ M.T).reshape(E, n, n, n)  # [e,l,m,k]
    t2 = np.matmul(M, t1)  # [e,l,j,k], batched over e,l
    return np.matmul(M, t2.reshape(E, n, n * n)).reshape(E, n, n, n)  # [e,i,j,k]


def implementations(kernel, impl, T, bt):
    """-> (function returning the output, output name, threads used)."""
    ein = lambda spec, *ops: (lambda: np.einsum(spec, *ops, optimize=True))
    if kernel in ("mm", "tmm"):
        A, B = T["A"], T["B"]
        spec = "ki,kj->ij" if kernel == "tmm" else "ik,kj->ij"
        if impl == "numpy-einsum-opt":
            return ein(spec, A, B), "C", bt
        if impl == "numpy-matmul":
            return ((lambda: A.T @ B) if kernel == "tmm" else (lambda: A @ B)), "C", bt
    if kernel == "bmm":
        A, B = T["A"], T["B"]
        if impl == "numpy-einsum-opt":  # batch index: no BLAS, C loops
            return ein("bik,bkj->bij", A, B), "C", 1
        if impl == "numpy-matmul":
            return (lambda: np.matmul(A, B)), "C", bt
    if kernel == "mttkrp":
        B, C, D = T["B"], T["C"], T["D"]
        if impl == "numpy-einsum-opt":
            return ein("ikl,lj,kj->ij", B, D, C), "A", bt
        if impl == "numpy-tensordot":
            return (lambda: np.einsum("ikj,kj->ij", np.tensordot(B, D, axes=(2, 0)), C)), "A", bt
    if kernel == "sddmm":
        S, B, C = T["S"], T["B"], T["C"]
        if impl == "numpy-einsum-opt":
            return ein("ij,ik,kj->ij", S, B, C), "A", bt
        if impl == "numpy-matmul":
            return (lambda: S * (B @ C)), "A", bt
    if kernel == "interp":
        A, u = T["A"], T["u"]
        if impl == "numpy-einsum-opt":
            return ein("il,jm,kn,elmn->eijk", A, A, A, u), "v", bt
        if impl == "numpy-matmul":
            return (lambda: tp_matmul(A, u)), "v", bt
    if kernel == "helm":
        S, u, D = T["S"], T["u"], T["D"]
        if impl == "numpy-einsum-opt":
            def f():
                t = np.einsum("il,jm,kn,elmn->eijk", S, S, S, u, optimize=True)
                return np.einsum("li,mj,nk,elmn->eijk", S, S, S, D * t, optimize=True)
            return f, "v", bt
        if impl == "numpy-matmul":
            return (lambda: tp_matmul(S.T, D * tp_matmul(S, u))), "v", bt
    if kernel == "coars":
        xx, yy, xy, kappa = T["Sxx"], T["Syy"], T["Sxy"], float(T["kappa"])
        if impl == "numpy":
            return (lambda: (xx * yy - xy * xy) - kappa * ((xx + yy) * (xx + yy))), "R", 1
        if impl == "numpy-out":
            out, t = np.empty_like(xx), np.empty_like(xx)

            def f():  # the same ufuncs into preallocated buffers
                np.multiply(xx, yy, out=out)
                np.multiply(xy, xy, out=t)
                np.subtract(out, t, out=out)
                np.add(xx, yy, out=t)
                np.multiply(t, t, out=t)
                np.multiply(t, kappa, out=t)
                np.subtract(out, t, out=out)
                return out
            return f, "R", 1
    return None, None, None


def main(argv):
    if len(argv) < 2 or ":" not in argv[1]:
        sys.exit("usage: np_impls.py KERNEL:IMPL --in NAME=FILE.npy ... --out NAME=FILE.npy")
    kernel, impl = argv[1].split(":", 1)
    T, outs = {}, {}
    i = 2
    while i < len(argv):
        if argv[i] not in ("--in", "--out") or i + 1 >= len(argv) or "=" not in argv[i + 1]:
            sys.exit("np_impls.py: bad argument '%s'" % argv[i])
        name, path = argv[i + 1].split("=", 1)
        if argv[i] == "--in":
            T[name] = np.load(path)
        else:
            outs[name] = path
        i += 2
    core, bt = blas_info()
    print("info numpy %s numpy_blas %s threads %d" % (np.__version__, core, bt))
    fn, oname, threads = implementations(kernel, impl, T, bt)
    if fn is None:
        sys.exit("np_impls.py: no implementation '%s' for kernel '%s'" % (impl, kernel))
    print("info threads %d" % threads)
    env = os.environ.get
    min_runs = max(1, int(env("BENCH_MIN_RUNS") or 5))
    max_runs = max(min_runs, int(env("BENCH_MAX_RUNS") or 30))
    target = float(env("BENCH_TARGET_SEC") or 1.0)
    res = fn()  # warm-up
    ts = []
    while len(ts) < max_runs and (len(ts) < min_runs or sum(ts) < target):
        t0 = time.perf_counter()
        res = fn()
        ts.append(time.perf_counter() - t0)
    ms = [t * 1e3 for t in ts]
    print("runs_ms " + " ".join("%.6f" % t for t in ms))
    s = sorted(ms)
    n = len(s)
    med = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    print("time_ms median=%.6f min=%.6f max=%.6f runs=%d" % (med, s[0], s[-1], n), flush=True)
    for name, path in outs.items():
        if name != oname:
            sys.exit("np_impls.py: the kernel has no output '%s'" % name)
        np.save(path, np.ascontiguousarray(res, dtype=np.float64))


if __name__ == "__main__":
    main(sys.argv)
