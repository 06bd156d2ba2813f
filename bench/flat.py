"""flat.py - bench/flat.sh's edit of teilc's C for interp at n = 12 or 13
(spec/schedule.md, "A flat last contraction"): the last contraction,
v[i, (j, k)] = sum_l A[i, l] t2[l, (j, k)], as one register block over the
flattened (j, k) slice (n*n lanes: 18 vectors at n = 12, 21 and one lane at
n = 13) instead of n rows of two vectors each; t2's slices are stored
unpadded (rows of n, each slice rounded up to whole vectors) for it. The sums
keep their order, so the output is bit-identical to teilc's.

    python3 bench/flat.py N IN.c OUT.c
"""
import re
import sys


def fail(msg):
    sys.exit("flat.py: " + msg + " (teilc's code for interp has changed; see spec/schedule.md)")


def main():
    n, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    if n not in (12, 13):
        sys.exit("flat.py: N must be 12 or 13")
    c = open(src).read()
    c, k = re.subn(r"^void interp\(", "void interp_flat(", c, count=1, flags=re.M)
    if not k:
        fail("no function interp")
    c = "#include <immintrin.h>\n" + c
    q = (n * n + 7) // 8                        # vectors of a flat slice
    s = 8 * q                                   # its padded length
    st = re.search(r"_t2_l\[(\d+)\*i2 \+ 16\*i3 \+ i4\] = _t2_r\[16\*i3 \+ i4\];", c)
    if not st:
        fail("no store of t2's register block")
    c = c.replace(st.group(0), "_t2_l[%d*i2 + %d*i3 + i4] = _t2_r[16*i3 + i4];" % (s, n), 1)
    decl = re.search(r"double _t2_l\[(\d+)\];[^\n]*\n", c)
    if not decl:
        fail("no declaration of t2's element part")
    pad = "" if s == n * n else \
        "      for (int z = 0; z < %d; z++) for (int y = %d; y < %d; y++) _t2_l[%d*z + y] = 0;\n" % (n, n * n, s, s)
    c = c.replace(decl.group(0), "double _t2_l[%d] __attribute__((aligned(64)));\n%s" % (n * s, pad), 1)
    zero = "/* the register block starts from zero (R-CG-22) */"
    start = c.rfind(zero)
    if start < 0 or "v_r[" not in c[start:start + 400]:
        fail("no zeroed register block of v")
    start = c.rfind("\n", 0, start) + 1
    end = c.find("/* copy the staged region out with streaming stores (R-CG-26) */", start)
    if end >= 0:                                # v staged in v_s, then streamed
        end = c.rfind("\n", 0, end) + 1
        out = "".join("_mm512_storeu_pd(v_s + %d, a%d); " % (8 * k, k) for k in range(q))
    else:                                       # v stored from the block
        m = re.search(r"v\[(\d+)\*i1 \+ (\d+)\*i2 \+ %d\*i3 \+ i4\] = v_r\[16\*i3 \+ i4\];\n(\s*\}\n){2}" % n,
                      c[start:])
        if not m:
            fail("no store of v's register block")
        end = start + m.end()
        base = "v + %s*i1 + %s*i2" % (m.group(1), m.group(2))
        whole = n * n // 8
        out = "".join("_mm512_storeu_pd(%s + %d, a%d); " % (base, 8 * k, k) for k in range(whole))
        if whole < q:                           # n = 13: the one lane left
            out += "v[%s*i1 + %s*i2 + %d] = _mm512_cvtsd_f64(a%d);" % (m.group(1), m.group(2), n * n - 1, q - 1)
    acc = "".join("__m512d a%d = _mm512_setzero_pd(); " % k for k in range(q))
    fma = "".join("a%d = _mm512_fmadd_pd(c, _mm512_load_pd(_t2_l_ro + %d*r1 + %d), a%d); " % (k, s, 8 * k, k)
                  for k in range(q))
    ind = " " * (len(c[start:]) - len(c[start:].lstrip(" ")))
    block = ("%s%s\n%sfor (long long r1 = 0; r1 < %d; r1++) {\n%s  __m512d c = _mm512_set1_pd(A[%d*i2 + r1]);\n"
             "%s  %s\n%s}\n%s%s\n") % (ind, acc, ind, n, ind, n, ind, fma, ind, ind, out)
    c = c[:start] + block + c[end:]
    open(dst, "w").write(c)


main()
