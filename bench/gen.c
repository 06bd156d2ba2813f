/* Deterministic inputs for every implementation of the bench (the generator of
 * ../shared/peers/README.md, so values equal the peers' bit for bit):
 *   x[idx] = ((idx*2654435761 + seed*97) mod 1000003) / 1000003 - 0.5
 * over the row-major flat index.
 *   gen OUT.npy SEED D1 D2 ...     tensor of shape [D1, D2, ...]
 *   gen OUT.npy =VALUE             scalar (shape ()) holding VALUE           */
#include "harness.h"

int main(int argc, char **argv) {
  bt_prog = "gen";
  if (argc < 3) bt_die("usage: gen OUT.npy SEED D1 D2 ... | gen OUT.npy =VALUE");
  bt_tensor t = {0};
  t.name = "out";
  t.path = argv[1];
  t.out = 1;
  if (argv[2][0] == '=') {
    t.rank = 0;
    t.count = 1;
    t.data = bt_alloc(1);
    t.data[0] = strtod(argv[2] + 1, NULL);
  } else {
    unsigned long long seed = strtoull(argv[2], NULL, 10);
    t.rank = argc - 3;
    if (t.rank > BT_MAXR) bt_die("rank too large");
    t.count = 1;
    for (int i = 0; i < t.rank; i++) {
      t.dims[i] = strtoll(argv[3 + i], NULL, 10);
      if (t.dims[i] < 1) bt_die("bad extent '%s'", argv[3 + i]);
      t.count *= t.dims[i];
    }
    t.data = bt_alloc(t.count);
    for (long long i = 0; i < t.count; i++) {
      unsigned long long h = ((unsigned long long)i * 2654435761ULL + seed * 97ULL) % 1000003ULL;
      t.data[i] = (double)h / 1000003.0 - 0.5;
    }
  }
  bt_write_npy(&t);
  return 0;
}
