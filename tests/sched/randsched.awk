# randsched.awk - one random schedule step (spec/schedule.md R-SCH-1, R-SCH-19).
#   awk -v seed=N -v targets="C B#2 _t1" [-v mode=fuse] -f randsched.awk
# prints one line "TARGET: primitive args"; tests/sched/run.sh keeps the
# steps teilc accepts.
function pick(n) { return int(rand() * n) }
function lvl() { return 1 + pick(rand() < 0.7 ? 3 : 6) }
function fac() { return 2 + pick(rand() < 0.7 ? 3 : 7) }
BEGIN {
  srand(seed)
  n = split(targets, t, " ")
  if (n == 0) exit 0
  tg = t[1 + pick(n)]
  r = pick(100)
  if (mode == "fuse" && rand() < 0.4) r = 34 + pick(20)   # more fusions
  if (r < 16) { l = lvl(); print tg ": stripmine " l " " fac() }
  else if (r < 34) { l = lvl(); print tg ": interchange " l " " (rand() < 0.6 ? l + 1 : lvl()) }
  else if (r < 46) { print tg ": fuse_outer " t[1 + pick(n)] " " lvl() }
  else if (r < 54) { print tg ": fuse_inner " (1 + lvl()) }
  else if (r < 66) { if (rand() < 0.4) print tg ": unroll " lvl(); else print tg ": unroll " lvl() " " fac() }
  else if (r < 78) { l = lvl(); if (rand() < 0.5) print tg ": tile " l " " (l + 1) " " fac() " " fac(); else print tg ": tile " l " " (l + 1) " " fac() }
  else if (r < 88) { print tg ": parallelize " lvl() }
  else if (r < 93) { print tg ": vectorize " lvl() }
  else if (r < 95) { print tg ": distribute " lvl() }
  else if (r < 97) { print tg ": scalar_replace " lvl() }
  else if (r < 98) { print tg ": fuse_before " lvl() }
  else if (r < 99) { if (rand() < 0.5) print tg ": inline"; else print tg ": private " (rand() < 0.8 ? 1 : lvl()) }
  else { print tg ": contract " lvl() }
}
