#!/bin/sh
# The main job on the bundled examples: check every kernel, then run each on
# the reference interpreter with random inputs, plain and padded (M = 8, which
# also checks the report's Theorems 2 and 3 on the run).
set -eu
cd "$(dirname "$0")/.."
B=build/bin
echo "== teil-check: type-checking every example"
$B/teil-check --print-types examples/*.teil examples/*.tm
echo
for f in examples/*.teil examples/*.tm; do
  echo "== teil-run $f --seed 1 --pad 8"
  $B/teil-run "$f" --seed 1 --pad 8
done
echo
echo "== teil-run examples/mm.teil --seed 1 --print"
$B/teil-run examples/mm.teil --seed 1 --print
echo
echo "== an ill-typed kernel: TeIL Fig. 3a (TVM), rejected"
printf 'alloc A : [3, 6]\nalloc B : [4, 6]\nalloc C : [3, 4]\nC = contr 1 3 (prod A B)\n' > build/fig3a.teil
$B/teil-check build/fig3a.teil || echo "(teil-check exit status $?, as expected)"
