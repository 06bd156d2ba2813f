#!/bin/sh
# sched_seeds.sh DIR: seed inputs for tests/fuzz/fuzz_sched.c, from the repo root
# after make. For each program of examples/teml/ (in fuzz_sched.c's order), its
# hand-written schedule and the steps of its default schedule (teilc
# --dump=schedule, R-SCH-17) with --pad 1 and --pad 4; for tests/fuzz/lanes3.teil
# the steps of its default schedule without and with --lanes (then also with
# --stream). Each behind the two bytes that pick the program and the options.
set -eu
dir=${1:?usage: sh tests/fuzz/sched_seeds.sh DIR}
mkdir -p "$dir"
i=0
for p in bmm coars helm interp mm_tiled mttkrp sddmm; do
  prefix=$(printf '\\%03o' "$i")
  printf "$prefix\\000" | cat - "examples/teml/$p.sched" > "$dir/$p.hand"
  for pad in 1 4; do
    opt=$(printf '\\%03o' $((pad == 4)))
    build/bin/teilc "examples/teml/$p.teil" --pad $pad --dump=schedule -o /dev/null > "$dir/.steps"
    printf "$prefix$opt" | cat - "$dir/.steps" > "$dir/$p.default$pad"
  done
  i=$((i + 1))
done
prefix=$(printf '\\%03o' "$i")
build/bin/teilc tests/fuzz/lanes3.teil --dump=schedule -o /dev/null > "$dir/.steps"
printf "$prefix\\000" | cat - "$dir/.steps" > "$dir/lanes3.default"
build/bin/teilc tests/fuzz/lanes3.teil --lanes --dump=schedule -o /dev/null > "$dir/.steps"
printf "$prefix\\040" | cat - "$dir/.steps" > "$dir/lanes3.lanes"
printf "$prefix\\060" | cat - "$dir/.steps" > "$dir/lanes3.lanes_stream"
rm -f "$dir/.steps"
echo "sched_seeds: $(ls "$dir" | wc -l) seeds in $dir"
