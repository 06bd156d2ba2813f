#!/usr/bin/python3
"""Consistency check for gen.py (NOT the source of the expected values).

    /usr/bin/python3 tests/run/crosscheck.py

gen.py computes every expected output by a hand-written NumPy expression. This
script evaluates each tests/run/CASE/prog.* a second, independent way -- a
tiny reference evaluator that applies the papers' operator definitions one
operator at a time -- and reports any case where the two disagree. A
disagreement means gen.py (or this file) has a mistake; it is a review aid
for whoever edits gen.py.
"""
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
U = np.nan


def ddiv(a, b):
    with np.errstate(all="ignore"):
        q = np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64)
    return np.where(np.asarray(b) == 0, U, q)


# --------------------------------------------------------------------------
# operators (1-based positions, DECISIONS 3-5 for i > j)
# --------------------------------------------------------------------------
def op_transp(i, j, x):
    assert i != j and 1 <= i <= x.ndim and 1 <= j <= x.ndim
    return np.swapaxes(x, i - 1, j - 1)


def op_diag(i, j, x):
    lo, hi = min(i, j), max(i, j)
    assert lo != hi and hi <= x.ndim and lo >= 1 and x.shape[lo - 1] == x.shape[hi - 1]
    return np.moveaxis(np.diagonal(x, axis1=lo - 1, axis2=hi - 1), -1, lo - 1)


def op_red(i, x):
    assert 1 <= i <= x.ndim
    return np.sum(x, axis=i - 1)


def op_contr(i, j, x):
    return op_red(min(i, j), op_diag(i, j, x))


def op_expa(i, n, x):
    assert 1 <= i <= x.ndim + 1 and n >= 1
    return np.repeat(np.expand_dims(x, i - 1), n, axis=i - 1)


def op_proj(i, m, x):
    assert 1 <= i <= x.ndim and 1 <= m <= x.shape[i - 1]
    return np.take(x, m - 1, axis=i - 1)


class TooLarge(Exception):
    """An outer product too large to build one operator at a time."""


PROD_LIMIT = 1 << 26  # elements (512 MiB of float64)


def op_prod(a, b):
    if np.size(a) * np.size(b) > PROD_LIMIT:
        raise TooLarge("an outer product of %d elements" % (np.size(a) * np.size(b)))
    return np.multiply.outer(a, b)


def op_elem(op, a, b):
    if op == "mul" and a.ndim == 0:
        return a * b
    if op == "div" and b.ndim == 0:
        return ddiv(a, b)
    assert a.shape == b.shape, (op, a.shape, b.shape)
    return {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": ddiv}[op](a, b)


# --------------------------------------------------------------------------
# lexing / parsing
# --------------------------------------------------------------------------
def lex(text, lang):
    if lang == "teil":
        text = re.sub(r"#[^\n]*", "", text)
        pat = r"red_\+|red\+|[A-Za-z_][A-Za-z0-9_]*|\d+|[()\[\]:=,]"
    else:
        text = re.sub(r"//[^\n]*", "", text)
        pat = r"[A-Za-z_][A-Za-z0-9_]*|\d+|[()\[\]:=,+\-*/#.^]"
    toks = re.findall(pat + r"|\S", text)
    return ["red+" if t == "red_+" else t for t in toks]


class P:
    def __init__(self, toks):
        self.t = toks
        self.i = 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def next(self):
        t = self.peek()
        self.i += 1
        return t

    def expect(self, s):
        t = self.next()
        assert t == s, (s, t)


def parse_decls(p, kw):
    decls = []
    while p.peek() == kw:
        p.next()
        quals = set()
        while p.peek() in ("input", "output"):
            quals.add(p.next())
        name = p.next()
        p.expect(":")
        p.expect("[")
        dims = []
        while p.peek() != "]":
            t = p.next()
            if t != ",":
                dims.append(int(t))
        p.expect("]")
        decls.append((name, tuple(dims), quals))
    return decls


TEIL2 = {"add", "sub", "mul", "div", "prod"}


def teil_expr(p, env):
    t = p.next()
    if t == "(":
        v = teil_expr(p, env)
        p.expect(")")
        return v
    if t in TEIL2:
        a = teil_atom(p, env)
        b = teil_atom(p, env)
        return op_prod(a, b) if t == "prod" else op_elem(t, a, b)
    if t == "red+":
        i = int(p.next())
        return op_red(i, teil_atom(p, env))
    if t in ("transp", "diag", "expa", "proj", "contr"):
        i = int(p.next())
        j = int(p.next())
        x = teil_atom(p, env)
        return {"transp": op_transp, "diag": op_diag, "expa": op_expa,
                "proj": op_proj, "contr": op_contr}[t](i, j, x)
    return env[t]


def teil_atom(p, env):
    if p.peek() == "(":
        p.next()
        v = teil_expr(p, env)
        p.expect(")")
        return v
    return env[p.next()]


MOP = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


def model_primary(p, env):
    t = p.next()
    if t == "(":
        v = model_expr(p, env)
        p.expect(")")
        return v
    return env[t]


def model_expr(p, env):
    v = model_primary(p, env)
    while True:
        t = p.peek()
        if t in MOP:
            p.next()
            v = op_elem(MOP[t], v, model_primary(p, env))
        elif t == "#":
            p.next()
            v = op_prod(v, model_primary(p, env))
        elif t in (".", "^"):
            p.next()
            p.expect("[")
            m = int(p.next())
            n = int(p.next())
            p.expect("]")
            v = op_contr(m, n, v) if t == "." else op_transp(m, n, v)
        else:
            return v


def run(cdir):
    lang = "teil" if os.path.exists(os.path.join(cdir, "prog.teil")) else "tm"
    text = open(os.path.join(cdir, "prog." + lang)).read()
    p = P(lex(text, lang))
    decls = parse_decls(p, "alloc" if lang == "teil" else "var")
    anyq = any(q for _, _, q in decls)
    store = {}
    for name, dims, quals in decls:
        if "input" in quals or not anyq:
            x = np.load(os.path.join(cdir, "in", name + ".npy"))
            assert x.shape == dims
            store[name] = x
        else:
            store[name] = np.full(dims, U)
    while p.peek() is not None:
        target = p.next()
        p.expect("=")
        v = teil_expr(p, store) if lang == "teil" else model_expr(p, store)
        v = np.asarray(v, dtype=np.float64)
        assert v.shape == store[target].shape, (target, v.shape, store[target].shape)
        store = dict(store)
        store[target] = v  # the right-hand side was evaluated on the old store
    return store


def main():
    bad = 0
    n = 0
    skipped = 0
    for case in sorted(os.listdir(HERE)):
        cdir = os.path.join(HERE, case)
        if not os.path.isdir(os.path.join(cdir, "expect")):
            continue
        n += 1
        try:
            store = run(cdir)
        except TooLarge as e:  # gen.py's einsum is then the only evaluation
            print("%s: skipped: %s" % (case, e))
            skipped += 1
            continue
        except Exception as e:  # noqa
            print("%s: crosscheck evaluator failed: %r" % (case, e))
            bad += 1
            continue
        for f in sorted(os.listdir(os.path.join(cdir, "expect"))):
            name = f[:-4]
            want = np.load(os.path.join(cdir, "expect", f))
            got = store[name]
            if want.shape != got.shape or not np.array_equal(want, got, equal_nan=True):
                print("%s: %s differs\n  expected %r\n  crosscheck %r" % (case, name, want, got))
                bad += 1
    print("%d cases, %d disagreements, %d skipped (too large)" % (n, bad, skipped))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
