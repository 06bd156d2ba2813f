#!/usr/bin/python3
"""Generate the interpreter golden tests in tests/run/.

    /usr/bin/python3 tests/run/gen.py

For every case this writes

    tests/run/CASE/prog.teil   (or prog.tm)
    tests/run/CASE/in/NAME.npy       one per input tensor (float64, C order)
    tests/run/CASE/expect/NAME.npy   one per output tensor

The expected outputs are computed here with NumPy, by a hand-written expression
per case that implements the papers' semantics directly (einsum, swapaxes,
diagonal, ...). The program text is never interpreted. The undefined value
(bullet) is represented by NaN; there are no real NaNs in these tests.

Semantics used (TeIL paper Fig. 6, report Fig. 12, Def. 4, spec/DECISIONS.md):
  * input tensors hold the given values; all other tensors start all-undefined;
    a program without any qualifier treats every tensor as input and output;
  * bullet op anything = bullet for + - * /; v/0 = bullet (also 0/0);
  * an assignment evaluates the whole right-hand side on the old store.

To keep the results independent of summation order (and of vectorisation,
padding, FMA), inputs are small multiples of 0.5 and divisors are powers of
two, so every value is exact in float64; the only inexact values come from a
single division that is the last operation applied to them.
"""
import os
import re
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
U = np.nan  # the undefined value

rng = np.random.default_rng(20190622)

HALVES = np.array([-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0])
POW2 = np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 4.0])


def V(*shape):
    """Nonzero multiples of 0.5 in [-2, 2]."""
    return rng.choice(HALVES, size=shape)


def P2(*shape):
    """Nonzero powers of two (exact divisors)."""
    return rng.choice(POW2, size=shape)


def S(x):
    """A scalar (rank-0 array)."""
    return np.array(float(x))


def ddiv(a, b):
    """Division of Def. 4: bullet if either operand is bullet or b == 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(all="ignore"):
        q = a / b
    return np.where(b == 0, U, q)


def undef(*shape):
    return np.full(shape, U)


CASES = []


def case(name, lang, prog, inputs, outputs):
    CASES.append((name, lang, prog, inputs, outputs))


# ---------------------------------------------------------------------------
# TeIL paper: Sec. 2 kernels, Fig. 7, Fig. 10, Fig. 11, Sec. 5
# ---------------------------------------------------------------------------
A = V(3, 4); B = V(4, 5)
case("teil_matmul_fig7", "teil", """
# TeIL paper Fig. 7: matrix multiplication C = A B (l = 3, m = 4, n = 5),
# once as in the figure and once with contr (Eq. 6).
alloc input A : [3, 4]
alloc input B : [4, 5]
alloc output C : [3, 5]
alloc output C2 : [3, 5]
C = red+ 2 (diag 2 3 (prod A B))
C2 = contr 2 3 (prod A B)
""", dict(A=A, B=B), dict(C=A @ B, C2=A @ B))

A = V(4, 3); B = V(4, 5)
case("teil_tmm_fig10b", "teil", """
# TeIL paper Fig. 10b (TVM Fig. 3b): C = A^T B, h = 4, m = 3, n = 5.
alloc input A : [4, 3]
alloc input B : [4, 5]
alloc output C : [3, 5]
C = contr 1 3 (prod A B)
""", dict(A=A, B=B), dict(C=A.T @ B))

Bt = V(2, 3, 4); Ct = V(4)
case("teil_taco_fig10a_a", "teil", """
# TeIL paper Fig. 10a, TACO Fig. 2a: A(i,j) = sum_k B(i,j,k) * C(k).
alloc input B : [2, 3, 4]
alloc input C : [4]
alloc output A : [2, 3]
A = contr 3 4 (prod B C)
""", dict(B=Bt, C=Ct), dict(A=np.einsum("ijk,k->ij", Bt, Ct)))

Bt = V(3, 2, 4); Ct = V(3)
case("teil_taco_fig10a_b", "teil", """
# TeIL paper Fig. 10a, TACO Fig. 2b: A(i,j) = sum_k B(i,j,k) * C(i).
alloc input B : [3, 2, 4]
alloc input C : [3]
alloc output A : [3, 2]
A = red+ 3 (diag 1 4 (prod B C))
""", dict(B=Bt, C=Ct), dict(A=np.einsum("ijk,i->ij", Bt, Ct)))

Bt = V(4, 2, 3); Ct = V(3)
case("teil_taco_fig10a_c", "teil", """
# TeIL paper Fig. 10a, TACO Fig. 2c: sum_k B(k,j,i) * C(i), indexed (j, i).
alloc input B : [4, 2, 3]
alloc input C : [3]
alloc output A : [2, 3]
A = red+ 1 (diag 3 4 (prod B C))
""", dict(B=Bt, C=Ct), dict(A=np.einsum("kji,i->ji", Bt, Ct)))

a0 = V(5); b0 = V(5); c0 = V(5)
case("teil_tc_fig10c_noqual", "teil", """
# TeIL paper Fig. 10c (TC Fig. 4): element-wise increment.  No qualifiers, so
# every tensor is input and output (DECISIONS 8); A's initial value is
# overwritten, B and C are unchanged.
alloc A : [5]
alloc B : [5]
alloc C : [5]
A = B
A = add A C
""", dict(A=a0, B=b0, C=c0), dict(A=b0 + c0, B=b0, C=c0))

A = V(3, 4); Bk = V(5, 3, 4)
case("teil_fig11_proj_expa", "teil", """
# TeIL paper Fig. 11 with k = 5, m = 3, n = 4.
alloc input A : [3, 4]
alloc input B : [5, 3, 4]
alloc output C : [3, 4]
alloc output D : [5, 3, 4]
C = add A (proj 1 2 B)
D = add (expa 1 5 A) B
""", dict(A=A, B=Bk), dict(C=A + Bk[1], D=A[np.newaxis, :, :] + Bk))

A = V(2, 3); B = V(2, 3); C = V(2, 3); u = V(3, 3, 3)
case("teil_sec5_operator", "teil", """
# TeIL paper Sec. 5, Eq. (7)-(8): v = (A (x) B (x) C) u, m = 2, n = 3.
alloc input A : [2, 3]
alloc input B : [2, 3]
alloc input C : [2, 3]
alloc input u : [3, 3, 3]
alloc output v : [2, 2, 2]
v = contr 4 5 (contr 3 6 (contr 2 7 (prod (prod A (prod B C)) u)))
""", dict(A=A, B=B, C=C, u=u), dict(v=np.einsum("ap,bq,cr,pqr->abc", A, B, C, u)))

# (A (x) A (x) A) u over E = 2 elements with n = 3: u : [E, n, n, n].
A = V(3, 3); u = V(2, 3, 3, 3)
v_cfd = np.einsum("ip,jq,kr,epqr->ijke", A, A, A, u)  # [i1, i2, i3, e]
case("teil_cfd_full", "teil", """
# (A (x) A (x) A) u for E = 2 elements, n = 3: contractions of the full
# outer product prod (prod A (prod A A)) u : [i1,j1,i2,j2,i3,j3,e,k1,k2,k3].
alloc input A : [3, 3]
alloc input u : [2, 3, 3, 3]
alloc output v : [3, 3, 3, 2]
v = contr 4 6 (contr 3 7 (contr 2 8 (prod (prod A (prod A A)) u)))
""", dict(A=A, u=u), dict(v=v_cfd))

case("teil_cfd_lifted", "teil", """
# The same operator as nested contractions of outer products
# (one matrix at a time), and lifted into temporaries.
alloc input A : [3, 3]
alloc input u : [2, 3, 3, 3]
alloc t1 : [3, 2, 3, 3]
alloc t2 : [3, 3, 2, 3]
alloc output v : [3, 3, 3, 2]
alloc output w : [3, 3, 3, 2]
v = contr 2 6 (prod A (contr 2 6 (prod A (contr 2 6 (prod A u)))))
t1 = contr 2 6 (prod A u)
t2 = contr 2 6 (prod A t1)
w = contr 2 6 (prod A t2)
""", dict(A=A, u=u), dict(v=v_cfd, w=v_cfd))

case("model_cfd", "tm", """
// (A (x) A (x) A) u for E = 2 elements, n = 3, in the model language.
var input A : [3 3]
var input u : [2 3 3 3]
var output v : [3 3 3 2]
v = (A # (A # A) # u).[2 8].[3 7].[4 6]
""", dict(A=A, u=u), dict(v=v_cfd))

# ---------------------------------------------------------------------------
# Report Fig. 4-6 (model language, smaller sizes, no qualifiers as in the report)
# ---------------------------------------------------------------------------
A = V(3, 4); B = V(4, 5); C0 = V(3, 5)
case("model_fig4_contraction", "tm", """
// Report Fig. 4 (300 400 500 -> 3 4 5).  No qualifiers: all tensors are
// input and output.
var A : [3 4]
var B : [4 5]
var C : [3 5]
C = (A # B).[2 3]
""", dict(A=A, B=B, C=C0), dict(A=A, B=B, C=A @ B))

A = V(3, 4); B = V(4, 3); s0 = S(0.5)
case("model_fig5_trace", "tm", """
// Report Fig. 5: trace of a matrix product (300 400 -> 3 4).
var A : [3 4]
var B : [4 3]
var s : []
s = ((A # B).[2 3]).[1 2]
""", dict(A=A, B=B, s=s0), dict(A=A, B=B, s=S(np.trace(A @ B))))

u = V(2, 3, 4, 5, 3); v0 = V(2, 5, 4, 3, 3)
case("model_fig6_transp", "tm", """
// Report Fig. 6: v = u ^ [2 4] (200 300 400 500 600 -> 2 3 4 5 3).
var u : [2 3 4 5 3]
var v : [2 5 4 3 3]
v = u ^ [2 4]
""", dict(u=u, v=v0), dict(u=u, v=np.swapaxes(u, 1, 3)))

A = V(4, 3); B = V(4, 5)
case("model_tmm", "tm", """
// Transposed matrix multiplication C = A^T B.
var input A : [4 3]
var input B : [4 5]
var output C : [3 5]
C = (A # B).[1 3]
""", dict(A=A, B=B), dict(C=A.T @ B))

# ---------------------------------------------------------------------------
# Traces, in-place updates
# ---------------------------------------------------------------------------
M = V(4, 4); A = V(3, 4); B = V(4, 3)
tr = S(np.trace(M))
case("teil_trace", "teil", """
# Trace of a matrix, three ways, and the trace of a matrix product.
alloc input M : [4, 4]
alloc input A : [3, 4]
alloc input B : [4, 3]
alloc output t1 : []
alloc output t2 : []
alloc output t3 : []
alloc output t4 : []
t1 = contr 1 2 M
t2 = red+ 1 (diag 1 2 M)
t3 = contr 2 1 M
t4 = contr 1 2 (contr 2 3 (prod A B))
""", dict(M=M, A=A, B=B), dict(t1=tr, t2=tr, t3=tr, t4=S(np.sum(A * B.T))))

A = V(4, 4); B = V(3, 2, 3)
case("teil_inplace_transp", "teil", """
# Assignment reads the old store (DECISIONS 9): in-place transposition.
alloc input output A : [4, 4]
alloc input output B : [3, 2, 3]
A = transp 1 2 A
B = transp 1 3 B
""", dict(A=A, B=B), dict(A=A.T, B=np.einsum("abc->cba", B)))

A = V(3, 3)
case("teil_inplace_matpow", "teil", """
# A = A A twice in place gives A^4.
alloc input output A : [3, 3]
A = contr 2 3 (prod A A)
A = contr 2 3 (prod A A)
""", dict(A=A), dict(A=np.linalg.matrix_power(A, 4)))

x = V(5); y = V(5); M = V(3, 3)
x1 = x + x; x2 = x1 - y; x3 = x2 * (x2 + y)
M1 = M + M.T; M2 = M1 @ M1.T
case("teil_inplace_sequence", "teil", """
# A sequence of in-place updates; each statement sees the previous one's result.
alloc input output x : [5]
alloc input y : [5]
alloc input output M : [3, 3]
x = add x x
x = sub x y
x = mul x (add x y)
M = add M (transp 1 2 M)
M = contr 2 3 (prod M (transp 1 2 M))
""", dict(x=x, y=y, M=M), dict(x=x3, M=M2))

A = V(3, 3)
At = A.T
case("model_inplace", "tm", """
var input output A : [3 3]
A = A ^[1 2]
A = (A # A).[2 3]
""", dict(A=A), dict(A=At @ At))

# ---------------------------------------------------------------------------
# Undefined values: division by zero, uninitialised tensors
# ---------------------------------------------------------------------------
a = np.array([1.0, 0.0, -1.5, 0.0, 2.0, 0.5, 2.0, 1.5])
b = np.array([0.0, 0.0, 2.0, 4.0, 0.5, -1.0, 0.0, 0.5])
q = np.array([U, U, -0.75, 0.0, 4.0, -0.5, U, 3.0])          # a / b by hand
r = np.array([0.0, U, 2.0 / -1.5, U, 0.25, -2.0, 0.0, 0.5 / 1.5])  # b / a by hand
assert np.array_equal(q, ddiv(a, b), equal_nan=True)
assert np.array_equal(r, ddiv(b, a), equal_nan=True)
w = np.where(np.isnan(q), U, 0.0)
case("teil_div_zero", "teil", """
# Def. 4: v/0 = bullet for every v (0/0 too), bullet propagates through
# + - * /, including bullet * 0 and bullet - bullet.
alloc input a : [8]
alloc input b : [8]
alloc input zero : [8]
alloc input z : []
alloc output q : [8]
alloc output r : [8]
alloc output w : [8]
alloc output m : [8]
alloc output s : []
alloc output d : []
alloc output e : []
q = div a b
r = div b a
w = sub (div a b) (div a b)
m = add (mul zero (div a b)) zero
s = red+ 1 (div a b)
d = div z z
e = div z (div z z)
""", dict(a=a, b=b, zero=np.zeros(8), z=S(0.0)),
    dict(q=q, r=r, w=w, m=w, s=S(U), d=S(U), e=S(U)))

A = V(3, 4); Bz = P2(3, 4); Bz[1, 2] = 0.0; Bz[2, 0] = 0.0; M = V(4, 2); v = V(2)
Q = ddiv(A, Bz)
case("teil_partial_undefined", "teil", """
# Division by zero at two positions makes exactly the dependent results undefined.
alloc input A : [3, 4]
alloc input B : [3, 4]
alloc input M : [4, 2]
alloc input v : [2]
alloc output Q : [3, 4]
alloc output R : [3]
alloc output S : [4]
alloc output P : [3, 2]
alloc output T : [4, 3]
alloc output X : [3, 4, 2]
Q = div A B
R = red+ 2 Q
S = red+ 1 Q
P = contr 2 3 (prod Q M)
T = transp 1 2 Q
X = prod Q v
""", dict(A=A, B=Bz, M=M, v=v),
    dict(Q=Q, R=Q.sum(axis=1), S=Q.sum(axis=0), P=np.einsum("ij,jk->ik", Q, M), T=Q.T,
         X=np.einsum("ij,k->ijk", Q, v)))
assert np.isnan(Q).sum() == 2

A = V(3); s0 = S(1.0)
case("teil_uninit_read", "teil", """
# Non-input tensors start all-undefined (DECISIONS 8): reading T gives bullet,
# also through mul with 0 and red+; U is never assigned.
alloc input A : [3]
alloc T : [3]
alloc output C : [3]
alloc output D : [3]
alloc output F : [3]
alloc output G : [3]
alloc output s : []
alloc output U : [2, 2]
C = add A T
D = A
F = mul T (sub A A)
G = T
G = add G A
s = red+ 1 T
""", dict(A=A), dict(C=undef(3), D=A, F=undef(3), G=undef(3), s=S(U), U=undef(2, 2)))

A = V(3)
case("model_uninit", "tm", """
// With qualifiers present, T (no qualifier) starts undefined.
var input A : [3]
var T : [3]
var output C : [3]
var output D : [3]
var output U : [2]
C = A + T
D = A * A
T = D
D = T - A
""", dict(A=A), dict(C=undef(3), D=A * A - A, U=undef(2)))

A = V(3, 3); Bz = P2(3, 3); Bz[1, 1] = 0.0; v = V(3)
Q = ddiv(A, Bz)
case("model_div_zero", "tm", """
var input A : [3 3]
var input B : [3 3]
var input v : [3]
var output Q : [3 3]
var output t : []
var output R : [3]
Q = A / B
t = Q.[1 2]
R = (Q # v).[2 3]
""", dict(A=A, B=Bz, v=v), dict(Q=Q, t=S(U), R=np.einsum("ij,j->i", Q, v)))
assert np.isnan(np.einsum("ij,j->i", Q, v)).sum() == 1

# ---------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------
A = V(3, 4); M = V(2, 2)
case("teil_scalar_mul", "teil", """
# T-SMul: scalar on the left of mul; prod with a scalar; scalar sub-expressions.
alloc input s : []
alloc input A : [3, 4]
alloc input M : [2, 2]
alloc output B : [3, 4]
alloc output s2 : []
alloc output C : [3, 4]
alloc output D : [3, 4]
alloc output E : [3, 4]
B = mul s A
s2 = mul s s
C = mul (contr 1 2 M) A
D = prod s A
E = prod A s
""", dict(s=S(1.5), A=A, M=M),
    dict(B=1.5 * A, s2=S(2.25), C=np.trace(M) * A, D=1.5 * A, E=1.5 * A))

A = V(3, 4); Pm = np.array([[1.0, 0.5], [0.25, 0.25]])
case("teil_div_scalar", "teil", """
# div with a scalar on the right (DECISIONS 6); dividing by a zero scalar.
alloc input A : [3, 4]
alloc input s : []
alloc input z : []
alloc input P : [2, 2]
alloc output B : [3, 4]
alloc output C : [3, 4]
alloc output D : [3, 4]
alloc output E : [3, 4]
B = div A s
C = div A z
D = div A (add s s)
E = div A (red+ 1 (red+ 1 P))
""", dict(A=A, s=S(2.0), z=S(0.0), P=Pm),
    dict(B=A / 2.0, C=undef(3, 4), D=A / 4.0, E=A / 2.0))

A = V(3)
case("teil_scalar_undefined", "teil", """
# An undefined scalar (0/0) makes every element undefined.
alloc input a : []
alloc input A : [3]
alloc s : []
alloc output B : [3]
alloc output C : [3]
alloc output t : []
s = div a a
B = mul s A
C = div A s
t = add s a
""", dict(a=S(0.0), A=A), dict(B=undef(3), C=undef(3), t=S(U)))

case("teil_scalars", "teil", """
alloc input a : []
alloc input b : []
alloc output c : []
alloc output d : []
alloc output e : []
alloc output f : []
alloc output g : []
alloc output h : []
alloc output k : []
alloc output v : [3]
c = add a b
d = sub a b
e = mul a b
f = div a b
g = prod a b
h = red+ 1 (expa 1 3 a)
k = proj 1 2 (expa 1 3 a)
v = expa 1 3 a
""", dict(a=S(1.5), b=S(-0.5)),
    dict(c=S(1.0), d=S(2.0), e=S(-0.75), f=S(-3.0), g=S(-0.75), h=S(4.5), k=S(1.5),
         v=np.array([1.5, 1.5, 1.5])))

A = V(2, 3)
case("model_scalar_ops", "tm", """
// t-smul (scalar on the left), t-sdiv (scalar on the right), scalars, v/0.
var input s : []
var input t : []
var input z : []
var input A : [2 3]
var output B : [2 3]
var output C : [2 3]
var output D : [2 3]
var output p : []
var output q : []
var output r : []
var output n : []
B = s * A
C = A / t
D = A / z
p = s * t
q = s / t
r = s / z
n = z / z
""", dict(s=S(-1.5), t=S(4.0), z=S(0.0), A=A),
    dict(B=-1.5 * A, C=A / 4.0, D=undef(2, 3), p=S(-6.0), q=S(-0.375), r=S(U), n=S(U)))

# ---------------------------------------------------------------------------
# Rank 6, extents of 1, i > j, expa/proj laws
# ---------------------------------------------------------------------------
A = V(2, 1, 3, 2, 2, 3)
case("teil_rank6_transp", "teil", """
alloc input A : [2, 1, 3, 2, 2, 3]
alloc output B : [3, 1, 3, 2, 2, 2]
alloc output C : [2, 3, 3, 2, 2, 1]
alloc output D : [3, 1, 2, 3, 2, 2]
B = transp 1 6 A
C = transp 6 2 A
D = transp 3 4 (transp 1 6 A)
""", dict(A=A), dict(B=np.einsum("abcdef->fbcdea", A),
                     C=np.einsum("abcdef->afcdeb", A),
                     D=np.einsum("abcdef->fbdcea", A)))

A = V(2, 3, 2, 3, 2, 2); X = V(2, 3, 2); Y = V(2, 3, 2)
case("teil_rank6_contr", "teil", """
alloc input A : [2, 3, 2, 3, 2, 2]
alloc input X : [2, 3, 2]
alloc input Y : [2, 3, 2]
alloc output E : [2, 3, 2, 3]
alloc output F : [3, 3]
alloc output G : [2, 2, 2, 2]
alloc output H : [3, 2, 3, 2]
alloc output K : [2, 3, 2, 2, 2]
alloc output Z : [2, 3, 3, 2]
E = contr 5 6 A
F = contr 1 3 (contr 5 6 A)
G = contr 2 4 A
H = red+ 5 (red+ 1 A)
K = diag 2 4 A
Z = contr 3 4 (prod X Y)
""", dict(A=A, X=X, Y=Y),
    dict(E=np.einsum("abcdee->abcd", A), F=np.einsum("iaibcc->ab", A),
         G=np.einsum("aibicd->abcd", A), H=A.sum(axis=(0, 5)),
         K=np.einsum("aibicd->aibcd", A), Z=np.einsum("abi,icd->abcd", X, Y)))

A = V(2, 3, 2, 3, 2, 2)
case("model_rank6", "tm", """
var input A : [2 3 2 3 2 2]
var output B : [2 3 2 3 2 2]
var output E : [2 3 2 3]
var output F : [3 3]
B = A ^[1 5]
E = A.[5 6]
F = A.[6 5].[3 1]
""", dict(A=A), dict(B=np.swapaxes(A, 0, 4), E=np.einsum("abcdee->abcd", A),
                     F=np.einsum("iaibcc->ab", A)))

A = V(1, 3, 1); B = V(1, 1)
case("teil_extent1", "teil", """
# Dimensions of extent 1.
alloc input A : [1, 3, 1]
alloc input B : [1, 1]
alloc output C : [1, 3, 1]
alloc output D : [3, 1, 1]
alloc output E : [1, 1]
alloc output F : [1, 3]
alloc output G : [1, 1, 3, 1]
alloc output P : [3, 1]
C = transp 1 3 A
D = contr 1 4 (prod A B)
E = red+ 2 A
F = diag 1 3 A
G = expa 2 1 A
P = proj 1 1 A
""", dict(A=A, B=B),
    dict(C=np.swapaxes(A, 0, 2), D=np.einsum("iaj,ib->ajb", A, B), E=A.sum(axis=1),
         F=np.einsum("aba->ab", A), G=A[:, np.newaxis, :, :], P=A[0]))

E = V(3, 4, 3); F = V(2, 3, 4, 3)
case("teil_diag_reversed", "teil", """
# DECISIONS 3-5: i > j; diag keeps the dimension at min(i,j).
alloc input E : [3, 4, 3]
alloc input F : [2, 3, 4, 3]
alloc output D : [3, 4]
alloc output c : [4]
alloc output G : [2, 3, 4]
alloc output H : [2, 4]
alloc output T : [3, 4, 3]
D = diag 3 1 E
c = contr 3 1 E
G = diag 4 2 F
H = contr 4 2 F
T = transp 3 1 E
""", dict(E=E, F=F),
    dict(D=np.einsum("aba->ab", E), c=np.einsum("aba->b", E), G=np.einsum("abcb->abc", F),
         H=np.einsum("abcb->ac", F), T=np.swapaxes(E, 0, 2)))

A = V(3, 4); E = V(3, 2, 3)
case("teil_expa_proj_laws", "teil", """
# TeIL paper Eq. (3)-(5) and expa at the last position.
alloc input A : [3, 4]
alloc input E : [3, 2, 3]
alloc output P : [3, 4]
alloc output R : [3, 4]
alloc output S : [3, 4]
alloc output Q : [3, 2]
alloc output X : [3, 4, 2]
alloc output W : [3]
P = proj 2 3 (expa 2 5 A)
R = red+ 2 (expa 2 5 A)
S = red+ 1 (expa 1 3 A)
Q = diag 1 3 (transp 1 3 E)
X = expa 3 2 A
W = proj 2 4 A
""", dict(A=A, E=E),
    dict(P=A, R=5 * A, S=3 * A, Q=np.einsum("aba->ab", E),
         X=np.repeat(A[:, :, np.newaxis], 2, axis=2), W=A[:, 3]))

# ---------------------------------------------------------------------------
# Model-language left associativity
# ---------------------------------------------------------------------------
A4 = V(4); B4 = P2(4); C4 = P2(4); M = V(2, 3); N = V(3, 4)
case("model_leftassoc", "tm", """
// DECISIONS 13: no precedence, everything associates to the left.
var input A : [4]
var input B : [4]
var input C : [4]
var input s : []
var input t : []
var input M : [2 3]
var input N : [3 4]
var output d1 : [4]
var output d2 : [4]
var output d3 : [4]
var output d4 : [4]
var output d5 : [4]
var output P : [2 4]
var output Q : [3 3 2 4]
d1 = A - B - C
d2 = A / B / C
d3 = A + B * C
d4 = s * A + B
d5 = s + t * A
P = M # N.[2 3]
Q = M # N ^[1 3]
""", dict(A=A4, B=B4, C=C4, s=S(1.5), t=S(-0.5), M=M, N=N),
    dict(d1=(A4 - B4) - C4, d2=(A4 / B4) / C4, d3=(A4 + B4) * C4, d4=1.5 * A4 + B4,
         d5=(1.5 - 0.5) * A4, P=M @ N, Q=np.swapaxes(np.einsum("ab,cd->abcd", M, N), 0, 2)))

# ---------------------------------------------------------------------------
# Assorted operations
# ---------------------------------------------------------------------------
A = V(3, 4); B = V(4, 5); D = V(3, 5)
T2 = A @ B
case("teil_outputs_temps", "teil", """
# Temporaries, an output, and an input output updated from a temporary.
alloc input A : [3, 4]
alloc input B : [4, 5]
alloc input output D : [3, 5]
alloc T1 : [3, 4, 4, 5]
alloc T2 : [3, 5]
alloc output C : [3, 5]
T1 = prod A B
T2 = contr 2 3 T1
C = add T2 D
D = sub D T2
""", dict(A=A, B=B, D=D), dict(C=T2 + D, D=D - T2))

A = V(2, 3, 4)
case("teil_transp_chain", "teil", """
alloc input A : [2, 3, 4]
alloc output B : [4, 2, 3]
alloc output C : [4, 3, 2]
B = transp 1 2 (transp 2 3 A)
C = transp 1 3 A
""", dict(A=A), dict(B=np.einsum("abc->cab", A), C=np.einsum("abc->cba", A)))

A = V(3, 4); B = V(3, 4); Dd = np.abs(P2(3, 4))  # positive: (A+B) = 0 must not give -0.0
case("teil_elementwise", "teil", """
alloc input A : [3, 4]
alloc input B : [3, 4]
alloc input D : [3, 4]
alloc output C : [3, 4]
alloc output E : [3, 4]
alloc output F : [3, 4]
C = sub (mul A B) (div A D)
E = add A (mul B B)
F = div (add A B) D
""", dict(A=A, B=B, D=Dd), dict(C=A * B - A / Dd, E=A + B * B, F=(A + B) / Dd))

u = V(3); w = V(4)
case("teil_prod_outer", "teil", """
alloc input u : [3]
alloc input w : [4]
alloc input s : []
alloc output P : [3, 4]
alloc output Q : [3]
alloc output R : [3]
alloc output T : [3, 4, 3]
P = prod u w
Q = prod s u
R = prod u s
T = prod (prod u w) u
""", dict(u=u, w=w, s=S(-2.0)),
    dict(P=np.outer(u, w), Q=-2.0 * u, R=-2.0 * u, T=np.einsum("a,b,c->abc", u, w, u)))

A = V(2, 3, 4)
case("teil_red_proj_axes", "teil", """
alloc input A : [2, 3, 4]
alloc output r1 : [3, 4]
alloc output r2 : [2, 4]
alloc output r3 : [2, 3]
alloc output t : []
alloc output p1 : [3, 4]
alloc output p2 : [2, 4]
alloc output p3 : [2, 3]
r1 = red+ 1 A
r2 = red+ 2 A
r3 = red+ 3 A
t = red+ 1 (red+ 1 (red+ 1 A))
p1 = proj 1 2 A
p2 = proj 2 3 A
p3 = proj 3 1 A
""", dict(A=A),
    dict(r1=A.sum(axis=0), r2=A.sum(axis=1), r3=A.sum(axis=2), t=S(A.sum()),
         p1=A[1], p2=A[:, 2], p3=A[:, :, 0]))

A = V(5, 3); B = V(3, 7); x = V(7)
case("teil_odd_sizes", "teil", """
# Extents that are not multiples of common vector lengths (useful with padding):
# y = A B x computed both ways round.
alloc input A : [5, 3]
alloc input B : [3, 7]
alloc input x : [7]
alloc output y : [5]
alloc output z : [5]
alloc output S : [7, 5]
y = contr 2 3 (prod A (contr 2 3 (prod B x)))
z = contr 2 3 (prod (contr 2 3 (prod A B)) x)
S = transp 1 2 (contr 2 3 (prod A B))
""", dict(A=A, B=B, x=x), dict(y=A @ (B @ x), z=(A @ B) @ x, S=(A @ B).T))

A = V(10, 10); u = V(2, 10, 10, 10); B = V(20, 20); w = V(3, 20, 20)
case("teil_cfd_rows", "teil", """
# (A (x) A (x) A) u with rows of 10 and (B (x) B) w with rows of 20 (teilc: 8 + 4
# lanes for f64 rows of 10, 16 + 8 for f32 rows of 20; spec/compiler.md R-CG-20).
alloc input A : [10, 10]
alloc input u : [2, 10, 10, 10]
alloc input B : [20, 20]
alloc input w : [3, 20, 20]
alloc output v : [2, 10, 10, 10]
alloc output y : [3, 20, 20]
v = contr 2 6 (contr 2 6 (contr 2 6 (prod u (prod A (prod A A)))))
y = contr 2 5 (contr 2 5 (prod w (prod B B)))
""", dict(A=A, u=u, B=B, w=w), dict(v=np.einsum("il,jm,kn,elmn->eijk", A, A, A, u),
                                    y=np.einsum("il,jm,elm->eij", B, B, w)))


# ---------------------------------------------------------------------------
# Writing and checking
# ---------------------------------------------------------------------------
DECL = {
    "teil": re.compile(r"^\s*alloc\s+((?:(?:input|output)\s+)*)([A-Za-z_][A-Za-z0-9_]*)\s*:\s*\[([^\]]*)\]"),
    "tm": re.compile(r"^\s*var\s+((?:(?:input|output)\s+)*)([A-Za-z_][A-Za-z0-9_]*)\s*:\s*\[([^\]]*)\]"),
}


def decls(lang, prog):
    """(name -> (shape, quals)) from the declarations of MY program text,
    used only to check the consistency of the files written below."""
    out = {}
    for line in prog.splitlines():
        m = DECL[lang].match(line)
        if m:
            quals = set(m.group(1).split())
            dims = tuple(int(d) for d in re.split(r"[\s,]+", m.group(3).strip()) if d)
            out[m.group(2)] = (dims, quals)
    return out


def check_case(name, lang, prog, inputs, outputs):
    d = decls(lang, prog)
    any_q = any(q for _, q in d.values())
    want_in = {n for n, (_, q) in d.items() if "input" in q or not any_q}
    want_out = {n for n, (_, q) in d.items() if "output" in q or not any_q}
    assert set(inputs) == want_in, (name, "inputs", sorted(inputs), sorted(want_in))
    assert set(outputs) == want_out, (name, "outputs", sorted(outputs), sorted(want_out))
    for n, x in list(inputs.items()) + list(outputs.items()):
        assert x.shape == d[n][0], (name, n, x.shape, d[n][0])
    for n, x in inputs.items():
        assert np.all(np.isfinite(x)), (name, n, "non-finite input")
    for n, x in outputs.items():
        assert not np.any(np.isinf(x)), (name, n, "inf in expected output")
        assert not np.any((x == 0) & np.signbit(x)), (name, n, "-0.0 in expected output")


def main():
    names = set()
    for c in CASES:
        assert c[0] not in names, c[0]
        names.add(c[0])
    # remove old case directories (only directories that look like cases)
    for entry in sorted(os.listdir(HERE)):
        p = os.path.join(HERE, entry)
        if os.path.isdir(p) and (os.path.exists(os.path.join(p, "prog.teil"))
                                 or os.path.exists(os.path.join(p, "prog.tm"))):
            shutil.rmtree(p)
    for name, lang, prog, inputs, outputs in CASES:
        prog = prog.lstrip("\n")
        inputs = {k: np.array(v, dtype=np.float64, order="C") for k, v in inputs.items()}
        outputs = {k: np.array(v, dtype=np.float64, order="C") for k, v in outputs.items()}
        check_case(name, lang, prog, inputs, outputs)
        cdir = os.path.join(HERE, name)
        os.makedirs(os.path.join(cdir, "in"))
        os.makedirs(os.path.join(cdir, "expect"))
        with open(os.path.join(cdir, "prog." + lang), "w") as f:
            f.write(prog)
        for k, v in inputs.items():
            np.save(os.path.join(cdir, "in", k + ".npy"), v)
        for k, v in outputs.items():
            np.save(os.path.join(cdir, "expect", k + ".npy"), v)
    print("%d cases written to %s" % (len(CASES), HERE))


if __name__ == "__main__":
    main()
