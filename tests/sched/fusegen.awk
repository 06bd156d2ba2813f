# fusegen.awk - small random TeIL programs over same-shaped tensors, so that
# loop nests have equal ranges and fusion, interchange and tiling meet real
# dependences (spec/schedule.md R-SCH-19).
#   awk -v seed=N -f fusegen.awk > prog.teil
function pick(n) { return int(rand() * n) }
function t() { return "T" pick(nt) }
function src() { return rand() < 0.3 ? "I" pick(2) : t() }
BEGIN {
  srand(seed)
  n = 2 + pick(4)                  # extent of every dimension
  nt = 3 + pick(2)
  print "# fusegen seed " seed
  print "alloc input I0 : [" n ", " n "]"
  print "alloc input I1 : [" n ", " n "]"
  for (i = 0; i < nt; i++) print "alloc input output T" i " : [" n ", " n "]"
  ns = 3 + pick(4)
  for (s = 0; s < ns; s++) {
    x = t(); r = pick(13)
    if (r == 0) e = src()
    else if (r == 1) e = "add " src() " " src()
    else if (r == 2) e = "transp 1 2 " src()
    else if (r == 3) e = "expa 2 " n " (proj 1 " (1 + pick(n)) " " src() ")"
    else if (r == 4) e = "expa 1 " n " (proj 2 " (1 + pick(n)) " " src() ")"
    else if (r == 5) e = "expa 1 " n " (red+ 1 " src() ")"
    else if (r == 6) e = "contr 2 3 (prod " src() " " src() ")"
    else if (r == 7) e = "mul " src() " " src()
    else if (r == 8) e = "add " x " " src()
    else if (r == 9) e = "transp 1 2 " x
    else if (r == 10) e = "expa 2 " n " (diag 1 2 " src() ")"
    else if (r == 11) e = "sub (transp 1 2 " src() ") " src()
    else e = "contr 1 3 (prod " src() " " src() ")"
    print x " = " e
  }
}
