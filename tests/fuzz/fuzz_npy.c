/*
 * fuzz_npy.c - fuzzing npy_parse (src/npy.c) on arbitrary bytes.
 *
 * LLVMFuzzerTestOneInput is a libFuzzer entry point:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *         tests/fuzz/fuzz_npy.c src/npy.c -o build/fuzz_npy
 *   build/fuzz_npy -max_len=4096 -runs=1000000
 * Besides "no crash, no out-of-bounds access, no undefined behaviour" it
 * checks the contract: on success the shape, count and data are consistent
 * and the array re-encoded as a C-order '<f8' image parses back to the same
 * bits; on failure the result is empty and the message is one line starting
 * with the name; a second call with a tiny message buffer and a tiny size
 * limit behaves consistently.  A violation calls abort().
 *
 * Built with -DNPY_FUZZ_MAIN the file also has a plain main, so the fuzzer
 * runs under gcc with ASan/UBSan and no libFuzzer:
 *   gcc -std=c11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
 *       -DNPY_FUZZ_MAIN -Isrc tests/fuzz/fuzz_npy.c src/npy.c -o build/fuzz_npy_main
 *   build/fuzz_npy_main [ITERATIONS [SEED [EXTRA_SEED_FILE...]]]
 * It runs a deterministic random-mutation loop (xorshift PRNG, fixed seed by
 * default) over a few built-in seed images (versions 1.0/2.0/3.0, '<f8' and
 * '<f4', C and Fortran order, ranks 0..3, header variants).  Mutations are
 * stacked byte edits, dictionary tokens, header-length and version edits,
 * number edits and splices, applied either to the raw image or to the header
 * text with the length field kept consistent.  Inputs that parse, or that
 * produce an error message of a kind not seen before, join the corpus - a
 * crude substitute for coverage feedback.  Every input is passed in a
 * malloc'd block of exactly its length so that ASan catches any overrun.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"

#define FUZZ_NAME "fuzz.npy"
#define FUZZ_MAX_BYTES ((size_t)1 << 24)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Set by the last LLVMFuzzerTestOneInput call, for the driver's feedback. */
static int fuzz_last_rc;
static char fuzz_last_msg[256];

/* Aborts with a note if a contract check fails. */
static void fuzz_require(int ok, const char *what, const char *msg) {
  if (!ok) {
    fprintf(stderr, "fuzz_npy: contract violated: %s (message: \"%s\")\n", what, msg != NULL ? msg : "");
    abort();
  }
}

/*
 * Encodes a as a version 1.0 '<f8' C-order image in a fresh malloc'd block
 * (NULL if the array is too large to bother) and checks that it parses back
 * to the same shape and the same bits.
 */
static void fuzz_roundtrip(const NpyArray *a) {
  char shape[NPY_MAX_DIMS * 24 + 8];
  char header[sizeof shape + 80];
  if (a->count > 4096) return;
  npy_shape_str(a->ndim, a->shape, shape, sizeof shape);
  int n = snprintf(header, sizeof header, "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }\n", shape);
  fuzz_require(n > 0 && (size_t)n < sizeof header, "header fits", NULL);
  size_t len = 10 + (size_t)n + 8 * a->count;
  unsigned char *img = malloc(len);
  fuzz_require(img != NULL, "malloc", NULL);
  memcpy(img, "\x93NUMPY\x01\x00", 8);
  img[8] = (unsigned char)(n & 0xff);
  img[9] = (unsigned char)(n >> 8);
  memcpy(img + 10, header, (size_t)n);
  for (size_t i = 0; i < a->count; i++) {
    uint64_t u;
    memcpy(&u, &a->data[i], 8);
    for (int k = 0; k < 8; k++) img[10 + (size_t)n + 8 * i + (size_t)k] = (unsigned char)(u >> (8 * k));
  }
  NpyArray b;
  char msg[256];
  int rc = npy_parse(img, len, "rt", SIZE_MAX, &b, msg, sizeof msg);
  fuzz_require(rc == 0, "re-encoded array parses", msg);
  fuzz_require(b.ndim == a->ndim && b.count == a->count, "round trip keeps rank and count", NULL);
  fuzz_require(memcmp(b.shape, a->shape, sizeof a->shape) == 0, "round trip keeps shape", NULL);
  fuzz_require(memcmp(b.data, a->data, a->count * sizeof(double)) == 0, "round trip keeps bits", NULL);
  npy_free(&b);
  free(img);
}

/* The libFuzzer entry point: parse, then check the contract. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  NpyArray a;
  char msg[256];
  memset(msg, 0x55, sizeof msg);
  int rc = npy_parse(data, size, FUZZ_NAME, FUZZ_MAX_BYTES, &a, msg, sizeof msg);
  fuzz_require(rc == 0 || rc == -1, "return code is 0 or -1", NULL);
  if (rc == 0) {
    fuzz_require(a.ndim >= 0 && a.ndim <= NPY_MAX_DIMS, "rank in range", NULL);
    fuzz_require(a.data != NULL, "data allocated", NULL);
    size_t count = 1;
    for (int k = 0; k < a.ndim; k++) {
      fuzz_require(a.shape[k] >= 1, "extents >= 1", NULL);
      count *= a.shape[k];
    }
    fuzz_require(count == a.count, "count is the product of the shape", NULL);
    fuzz_require(a.count <= FUZZ_MAX_BYTES / sizeof(double), "max_bytes respected", NULL);
    volatile double sink = 0;
    for (size_t i = 0; i < a.count; i++) sink += a.data[i]; /* let ASan check every element */
    (void)sink;
    fuzz_roundtrip(&a);
    snprintf(fuzz_last_msg, sizeof fuzz_last_msg, "ok");
  } else {
    fuzz_require(memchr(msg, '\0', sizeof msg) != NULL, "message terminated", NULL);
    fuzz_require(strncmp(msg, FUZZ_NAME ": ", strlen(FUZZ_NAME) + 2) == 0, "message starts with the name", msg);
    fuzz_require(strlen(msg) > strlen(FUZZ_NAME) + 2, "message says something", msg);
    fuzz_require(strchr(msg, '\n') == NULL && strchr(msg, '\r') == NULL, "message is one line", msg);
    fuzz_require(a.data == NULL && a.ndim == 0 && a.count == 0, "result empty on failure", msg);
    snprintf(fuzz_last_msg, sizeof fuzz_last_msg, "%s", msg);
  }

  /* Again with a tiny message buffer and a 64-byte limit. */
  NpyArray c;
  char small[16];
  size_t smallen = 1 + size % sizeof small;
  memset(small, 0x55, sizeof small);
  int rc2 = npy_parse(data, size, FUZZ_NAME, 64, &c, small, smallen);
  if (rc2 != 0) fuzz_require(memchr(small, '\0', smallen) != NULL, "small message terminated", NULL);
  for (size_t i = smallen; i < sizeof small; i++) fuzz_require(small[i] == 0x55, "small buffer not overrun", NULL);
  if (rc != 0) fuzz_require(rc2 == -1, "a refused input stays refused with a lower limit", msg);
  if (rc == 0) fuzz_require(rc2 == (a.count <= 8 ? 0 : -1), "the limit decides", NULL);
  fuzz_require(rc2 == 0 || (c.data == NULL && c.count == 0), "result empty on failure", NULL);
  npy_free(&c);
  npy_free(&a);
  fuzz_last_rc = rc;
  return 0;
}

#ifdef NPY_FUZZ_MAIN

/* ---------------------------------------------------------------------------
 * Stand-alone mutation driver
 * ------------------------------------------------------------------------- */

#define FUZZ_MAX_LEN 8192
#define FUZZ_CORPUS 512
#define FUZZ_KINDS 4096

typedef struct FuzzBuf {
  unsigned char *b;
  size_t len;
} FuzzBuf;

static uint64_t fuzz_state = 0x9e3779b97f4a7c15u;

/* xorshift64* pseudo-random numbers: deterministic for a given seed. */
static uint64_t fuzz_rand(void) {
  fuzz_state ^= fuzz_state >> 12;
  fuzz_state ^= fuzz_state << 25;
  fuzz_state ^= fuzz_state >> 27;
  return fuzz_state * 0x2545f4914f6cdd1du;
}

/* A random number in [0, n) (n > 0). */
static size_t fuzz_below(size_t n) { return (size_t)(fuzz_rand() % n); }

/* Builds a seed image: version, header text, and n values as f8 or f4. */
static FuzzBuf fuzz_seed(int major, const char *header, int f4, size_t n) {
  size_t plen = major == 1 ? 10 : 12, hl = strlen(header), w = f4 ? 4 : 8;
  FuzzBuf s;
  s.len = plen + hl + w * n;
  s.b = malloc(s.len);
  fuzz_require(s.b != NULL, "malloc", NULL);
  memcpy(s.b, "\x93NUMPY", 6);
  s.b[6] = (unsigned char)major;
  s.b[7] = 0;
  for (size_t i = 0; i < plen - 8; i++) s.b[8 + i] = (unsigned char)(hl >> (8 * i));
  memcpy(s.b + plen, header, hl);
  for (size_t i = 0; i < n; i++) {
    double d = (double)i * 1.5 - 2.0;
    if (f4) {
      float f = (float)d;
      uint32_t u;
      memcpy(&u, &f, 4);
      for (size_t k = 0; k < 4; k++) s.b[plen + hl + 4 * i + k] = (unsigned char)(u >> (8 * k));
    } else {
      uint64_t u;
      memcpy(&u, &d, 8);
      for (size_t k = 0; k < 8; k++) s.b[plen + hl + 8 * i + k] = (unsigned char)(u >> (8 * k));
    }
  }
  return s;
}

static const char *const fuzz_tokens[] = {
    "'descr'", "'shape'", "'fortran_order'", "True", "False", "'<f8'", "'<f4'", "'>f8'", "'=f8'", "'|f8'",
    "'<i8'", "(", ")", ",", ":", "{", "}", "()", "(1,)", "(2, 3)", "18446744073709551615", "4294967296",
    "9223372036854775807", "0", "1", "65", "L", "\\", "'", "\"", "[", "]", "-", " ", "\n", "\t", "\r",
    /* 65 dimensions, one more than allowed */
    ("(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
     "1,1,1,1,1,1,1,1,1,1,1,1,1,1)"),
};

static const unsigned char fuzz_bytes[] = {0,   0xff, 0x7f, 0x80, '0', '1', '9', ' ', ',',  '(', ')', '{', '}',
                                           '\'', '"', ':',  '\n', '-', 'L', '<', '>', '=', '|', 'f', '4', '8'};

/* Inserts n bytes from src at position at (bounded by FUZZ_MAX_LEN). */
static void fuzz_insert(FuzzBuf *x, size_t at, const unsigned char *src, size_t n) {
  if (x->len + n > FUZZ_MAX_LEN) return;
  unsigned char *nb = realloc(x->b, x->len + n + 1);
  fuzz_require(nb != NULL, "realloc", NULL);
  x->b = nb;
  memmove(x->b + at + n, x->b + at, x->len - at);
  memcpy(x->b + at, src, n);
  x->len += n;
}

/* Deletes n bytes at position at. */
static void fuzz_delete(FuzzBuf *x, size_t at, size_t n) {
  if (at + n > x->len) n = x->len - at;
  memmove(x->b + at, x->b + at + n, x->len - at - n);
  x->len -= n;
}

/* Applies one random mutation to x; other is a corpus entry for splicing. */
static void fuzz_mutate_once(FuzzBuf *x, const FuzzBuf *other) {
  size_t len = x->len;
  switch (fuzz_below(13)) {
  case 0: /* flip a bit */
    if (len) x->b[fuzz_below(len)] ^= (unsigned char)(1u << fuzz_below(8));
    break;
  case 1: /* random byte */
    if (len) x->b[fuzz_below(len)] = (unsigned char)fuzz_rand();
    break;
  case 2: /* interesting byte */
    if (len) x->b[fuzz_below(len)] = fuzz_bytes[fuzz_below(sizeof fuzz_bytes)];
    break;
  case 3: { /* insert a byte */
    unsigned char c = fuzz_below(2) ? fuzz_bytes[fuzz_below(sizeof fuzz_bytes)] : (unsigned char)fuzz_rand();
    fuzz_insert(x, fuzz_below(len + 1), &c, 1);
    break;
  }
  case 4: /* delete a range */
    if (len) fuzz_delete(x, fuzz_below(len), 1 + fuzz_below(8));
    break;
  case 5: /* duplicate a range */
    if (len) {
      size_t at = fuzz_below(len), n = 1 + fuzz_below(len - at < 32 ? len - at : 32);
      unsigned char tmp[32];
      memcpy(tmp, x->b + at, n);
      fuzz_insert(x, fuzz_below(len + 1), tmp, n);
    }
    break;
  case 6: { /* insert or overwrite with a dictionary token */
    const char *t = fuzz_tokens[fuzz_below(sizeof fuzz_tokens / sizeof fuzz_tokens[0])];
    size_t at = fuzz_below(len + 1), n = strlen(t);
    if (fuzz_below(2) && at + n <= len)
      memcpy(x->b + at, t, n);
    else
      fuzz_insert(x, at, (const unsigned char *)t, n);
    break;
  }
  case 7: /* truncate */
    if (len) x->len = fuzz_below(len + 1);
    break;
  case 8: { /* append random bytes */
    unsigned char tmp[16];
    size_t n = 1 + fuzz_below(sizeof tmp);
    for (size_t i = 0; i < n; i++) tmp[i] = (unsigned char)fuzz_rand();
    fuzz_insert(x, len, tmp, n);
    break;
  }
  case 9: /* header length field */
    if (len >= 12) {
      static const uint32_t v[] = {0, 1, 0xffff, 0xffffffffu, 0x100000, 0x100001, 0x7fffffff};
      uint32_t h = fuzz_below(2) ? v[fuzz_below(sizeof v / sizeof v[0])] : (uint32_t)(len - 12 + fuzz_below(5) - 2);
      size_t w = x->b[6] == 1 ? 2 : 4;
      for (size_t i = 0; i < w; i++) x->b[8 + i] = (unsigned char)(h >> (8 * i));
    }
    break;
  case 10: /* version bytes */
    if (len >= 8) {
      x->b[6] = (unsigned char)(fuzz_below(8) ? 1 + fuzz_below(3) : fuzz_rand());
      if (fuzz_below(8) == 0) x->b[7] = (unsigned char)fuzz_rand();
    }
    break;
  case 11: /* replace a run of digits by another number */
    if (len) {
      size_t at = fuzz_below(len);
      while (at < len && !(x->b[at] >= '0' && x->b[at] <= '9')) at++;
      if (at < len) {
        size_t end = at;
        while (end < len && x->b[end] >= '0' && x->b[end] <= '9') end++;
        char num[32];
        static const char *const big[] = {"0", "1", "2", "64", "65536", "2147483648", "4294967297",
                                          "18446744073709551616", "1000000000000"};
        if (fuzz_below(2))
          snprintf(num, sizeof num, "%s", big[fuzz_below(sizeof big / sizeof big[0])]);
        else
          snprintf(num, sizeof num, "%u", (unsigned)fuzz_below(20));
        fuzz_delete(x, at, end - at);
        fuzz_insert(x, at, (const unsigned char *)num, strlen(num));
      }
    }
    break;
  default: /* splice: our prefix with the other's suffix */
    if (other->len) {
      size_t cut = fuzz_below(len + 1), from = fuzz_below(other->len);
      x->len = cut;
      fuzz_insert(x, cut, other->b + from, other->len - from);
    }
    break;
  }
}

/*
 * Mutates x in place.  Half the time the mutations are applied to the
 * header text alone and the length field is then set to match, so that the
 * dict parser sees many inputs that get past the prefix checks.
 */
static void fuzz_mutate(FuzzBuf *x, const FuzzBuf *other) {
  size_t rounds = 1 + fuzz_below(fuzz_below(4) ? 3 : 8);
  size_t plen = x->len >= 8 && x->b[6] == 1 ? 10 : 12;
  size_t hlen = 0;
  if (x->len >= plen) {
    hlen = (size_t)x->b[8] | (size_t)x->b[9] << 8;
    if (plen == 12) hlen |= (size_t)x->b[10] << 16 | (size_t)x->b[11] << 24;
  }
  if (fuzz_below(2) && x->len >= plen && hlen <= x->len - plen) {
    FuzzBuf h;
    h.len = hlen;
    h.b = malloc(hlen + 1);
    fuzz_require(h.b != NULL, "malloc", NULL);
    memcpy(h.b, x->b + plen, hlen);
    for (size_t r = 0; r < rounds; r++) fuzz_mutate_once(&h, other);
    size_t tail = x->len - plen - hlen;
    if (plen + h.len + tail <= FUZZ_MAX_LEN) {
      unsigned char *nb = malloc(plen + h.len + tail + 1);
      fuzz_require(nb != NULL, "malloc", NULL);
      memcpy(nb, x->b, plen);
      memcpy(nb + plen, h.b, h.len);
      memcpy(nb + plen + h.len, x->b + plen + hlen, tail);
      for (size_t i = 0; i < plen - 8; i++) nb[8 + i] = (unsigned char)(h.len >> (8 * i));
      free(x->b);
      x->b = nb;
      x->len = plen + h.len + tail;
    }
    free(h.b);
  } else {
    for (size_t r = 0; r < rounds; r++) fuzz_mutate_once(x, other);
  }
}

/*
 * Hash of a message's "kind": the text before any position ("at byte N",
 * "at the end"), with digits and quoted parts (echoed file bytes) left out.
 */
static uint64_t fuzz_kind(const char *msg) {
  uint64_t h = 1469598103934665603u;
  int quoted = 0;
  const char *stop = strstr(msg, " at byte ");
  if (stop == NULL) stop = strstr(msg, " at the end");
  if (stop == NULL) stop = msg + strlen(msg);
  for (const char *p = msg; p < stop; p++) {
    if (*p == '\'' || *p == '"') quoted = !quoted;
    if (quoted || (*p >= '0' && *p <= '9')) continue;
    h = (h ^ (unsigned char)*p) * 1099511628211u;
  }
  return h;
}

/* Reads a whole (small) file as an extra seed; returns 0 on success. */
static int fuzz_load(const char *path, FuzzBuf *out) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  out->b = malloc(FUZZ_MAX_LEN);
  fuzz_require(out->b != NULL, "malloc", NULL);
  out->len = fread(out->b, 1, FUZZ_MAX_LEN, f);
  fclose(f);
  return 0;
}

int main(int argc, char **argv) {
  unsigned long long iters = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;
  unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  fuzz_state ^= seed * 0x9e3779b97f4a7c15u;
  if (fuzz_state == 0) fuzz_state = 1;

  static FuzzBuf corpus[FUZZ_CORPUS];
  size_t ncorpus = 0;
  corpus[ncorpus++] = fuzz_seed(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }   \n", 0, 6);
  corpus[ncorpus++] = fuzz_seed(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2, 3), }\n", 1, 12);
  corpus[ncorpus++] = fuzz_seed(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n", 0, 1);
  corpus[ncorpus++] = fuzz_seed(3, "{'shape': (5,), 'descr': '<f4', 'fortran_order': False}\n", 1, 5);
  corpus[ncorpus++] = fuzz_seed(1, "{\"descr\":\"<f8\",\"fortran_order\":True,\"shape\":(3L,2L,),}", 0, 6);
  corpus[ncorpus++] = fuzz_seed(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }\n", 0, 1);
  corpus[ncorpus++] = fuzz_seed(1, "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }\n", 0, 1);
  for (int i = 3; i < argc && ncorpus < FUZZ_CORPUS; i++) {
    if (fuzz_load(argv[i], &corpus[ncorpus]) != 0) {
      fprintf(stderr, "fuzz_npy: cannot read seed %s\n", argv[i]);
      return 2;
    }
    ncorpus++;
  }
  size_t nseeds = ncorpus;

  static uint64_t kinds[FUZZ_KINDS];
  size_t nkinds = 0;
  unsigned long long nok = 0;
  for (unsigned long long it = 0; it < iters; it++) {
    const FuzzBuf *base = &corpus[fuzz_below(fuzz_below(2) ? nseeds : ncorpus)];
    FuzzBuf x;
    x.len = base->len;
    x.b = malloc(x.len + 1);
    fuzz_require(x.b != NULL, "malloc", NULL);
    memcpy(x.b, base->b, x.len);
    fuzz_mutate(&x, &corpus[fuzz_below(ncorpus)]);

    unsigned char *exact = malloc(x.len ? x.len : 1); /* exactly len bytes for ASan */
    fuzz_require(exact != NULL, "malloc", NULL);
    memcpy(exact, x.b, x.len);
    LLVMFuzzerTestOneInput(exact, x.len);
    free(exact);

    if (fuzz_last_rc == 0) nok++;
    uint64_t k = fuzz_kind(fuzz_last_msg);
    int seen = 0;
    for (size_t i = 0; i < nkinds && !seen; i++) seen = kinds[i] == k;
    if (!seen || (fuzz_last_rc == 0 && fuzz_below(16) == 0)) {
      if (!seen && nkinds < FUZZ_KINDS) kinds[nkinds++] = k;
      if (ncorpus < FUZZ_CORPUS) {
        corpus[ncorpus++] = x;
        continue;
      }
      size_t victim = nseeds + fuzz_below(FUZZ_CORPUS - nseeds);
      free(corpus[victim].b);
      corpus[victim] = x;
      continue;
    }
    free(x.b);
  }
  printf("fuzz_npy: %llu iterations, %llu parsed ok, %zu kinds of result, corpus %zu\n", iters, nok, nkinds,
         ncorpus);
  for (size_t i = 0; i < ncorpus; i++) free(corpus[i].b);
  return 0;
}

#endif /* NPY_FUZZ_MAIN */
