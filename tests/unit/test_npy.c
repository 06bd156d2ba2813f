/*
 * test_npy.c - cmocka unit tests for src/npy.c, the .npy reader and writer.
 *
 * Covers: write/read round trips for ranks 0..6 (bit-exact, including NaN,
 * infinities, -0 and subnormals); the exact byte layout np.save produces;
 * '<f4' data; format versions 2.0 and 3.0; Fortran order converted to C order
 * against hand-computed expectations; the header variants the parser must
 * accept; and a long list of malformed inputs, each checked for the return
 * code, the message text, the one-line "NAME: ..." message form and an empty
 * result.  The small files in npy_data/ (made by npy_data/make_npy_data.py,
 * byte-identical to what numpy.save writes) are read as well.
 *
 * Every in-memory image is copied into a malloc'd block of exactly its size
 * before parsing, so AddressSanitizer catches any read past the end.
 *
 * Build and run from the repository root:
 *   gcc -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Werror \
 *       -fsanitize=address,undefined -Isrc tests/unit/test_npy.c src/npy.c \
 *       -lcmocka -o build/test_npy && build/test_npy
 * The data directory defaults to npy_data/ next to this source file (as
 * named by __FILE__); override with -DNPY_TEST_DATA_DIR="..." or the
 * environment variable NPY_TEST_DATA_DIR.
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "npy.h"

#define NAME "x.npy"
#define MSGLEN 512

static char tmp_dir[256];

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* The directory holding the npy_data test files. */
static const char *data_dir(void) {
  static char dir[1024];
  const char *env = getenv("NPY_TEST_DATA_DIR");
  if (env != NULL && *env != '\0') return env;
#ifdef NPY_TEST_DATA_DIR
  return NPY_TEST_DATA_DIR;
#else
  const char *file = __FILE__;
  const char *slash = strrchr(file, '/');
  if (slash == NULL) return "npy_data";
  snprintf(dir, sizeof dir, "%.*s/npy_data", (int)(slash - file), file);
  return dir;
#endif
}

/* Joins dir and name into a static buffer (one use at a time). */
static const char *path_in(const char *dir, const char *name) {
  static char p[1200];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return p;
}

/*
 * Builds a .npy image: magic, version major.minor, header length field
 * (2 bytes for major 1, else 4), the header text, then dlen data bytes.
 * If hlen_override is not (size_t)-1 it is stored as the header length.
 */
static unsigned char *mk_full(int major, int minor, const char *header, size_t hlen_override, const void *data,
                              size_t dlen, size_t *len) {
  size_t plen = major == 1 ? 10 : 12;
  size_t hl = strlen(header);
  size_t field = hlen_override == (size_t)-1 ? hl : hlen_override;
  *len = plen + hl + dlen;
  unsigned char *b = malloc(*len ? *len : 1);
  assert_non_null(b);
  memcpy(b, "\x93NUMPY", 6);
  b[6] = (unsigned char)major;
  b[7] = (unsigned char)minor;
  for (size_t i = 0; i < plen - 8; i++) b[8 + i] = (unsigned char)(field >> (8 * i));
  memcpy(b + plen, header, hl);
  if (dlen) memcpy(b + plen + hl, data, dlen);
  return b;
}

/* mk_full with the correct header length field. */
static unsigned char *mk(int major, const char *header, const void *data, size_t dlen, size_t *len) {
  return mk_full(major, 0, header, (size_t)-1, data, dlen, len);
}

/* Little-endian bytes of n doubles. */
static unsigned char *f8_bytes(const double *v, size_t n) {
  unsigned char *b = malloc(8 * n);
  assert_non_null(b);
  for (size_t i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &v[i], 8);
    for (int k = 0; k < 8; k++) b[8 * i + (size_t)k] = (unsigned char)(u >> (8 * k));
  }
  return b;
}

/* Little-endian bytes of n floats. */
static unsigned char *f4_bytes(const float *v, size_t n) {
  unsigned char *b = malloc(4 * n);
  assert_non_null(b);
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &v[i], 4);
    for (int k = 0; k < 4; k++) b[4 * i + (size_t)k] = (unsigned char)(u >> (8 * k));
  }
  return b;
}

/* Parses a copy of img in a block of exactly len bytes (so ASan sees overruns). */
static int parse_exact(const unsigned char *img, size_t len, size_t max_bytes, NpyArray *a, char *msg) {
  unsigned char *copy = malloc(len ? len : 1);
  assert_non_null(copy);
  if (len) memcpy(copy, img, len);
  int rc = npy_parse(len ? copy : NULL, len, NAME, max_bytes, a, msg, MSGLEN);
  free(copy);
  return rc;
}

/* Asserts the message is one line starting with "<name>: " and containing want. */
static void check_msg(const char *msg, const char *name, const char *want) {
  char prefix[300];
  snprintf(prefix, sizeof prefix, "%s: ", name);
  if (strncmp(msg, prefix, strlen(prefix)) != 0 || strstr(msg, want) == NULL || strchr(msg, '\n') != NULL) {
    print_error("message \"%s\" lacks \"%s\" (or the \"%s\" prefix)\n", msg, want, prefix);
    fail();
  }
}

/* Parses img (freeing it) and asserts failure with a message containing want. */
static void expect_fail_max(unsigned char *img, size_t len, size_t max_bytes, const char *want) {
  NpyArray a;
  char msg[MSGLEN];
  msg[0] = '\0';
  int rc = parse_exact(img, len, max_bytes, &a, msg);
  free(img);
  assert_int_equal(rc, -1);
  check_msg(msg, NAME, want);
  assert_null(a.data);
  assert_int_equal(a.ndim, 0);
  assert_int_equal(a.count, 0);
  npy_free(&a);
}

/* expect_fail_max with no size limit. */
static void expect_fail(unsigned char *img, size_t len, const char *want) { expect_fail_max(img, len, SIZE_MAX, want); }

/* Builds a version 1.0 image from a header and n doubles and expects failure. */
static void expect_header_fail(const char *header, size_t n, const char *want) {
  double zeros[16] = {0};
  unsigned char *d = f8_bytes(zeros, n);
  size_t len;
  unsigned char *img = mk(1, header, d, 8 * n, &len);
  free(d);
  expect_fail(img, len, want);
}

/* Parses img (freeing it) and asserts success. */
static void expect_ok(unsigned char *img, size_t len, NpyArray *a) {
  char msg[MSGLEN];
  msg[0] = '\0';
  int rc = parse_exact(img, len, SIZE_MAX, a, msg);
  free(img);
  if (rc != 0) print_error("unexpected failure: %s\n", msg);
  assert_int_equal(rc, 0);
  assert_non_null(a->data);
}

/* Asserts the array has the given shape. */
static void check_shape(const NpyArray *a, int ndim, const size_t *shape) {
  assert_int_equal(a->ndim, ndim);
  size_t count = 1;
  for (int k = 0; k < ndim; k++) {
    assert_int_equal(a->shape[k], shape[k]);
    count *= shape[k];
  }
  assert_int_equal(a->count, count);
}

/* Asserts the array values equal want exactly (bitwise). */
static void check_values(const NpyArray *a, const double *want, size_t n) {
  assert_int_equal(a->count, n);
  for (size_t i = 0; i < n; i++) {
    if (memcmp(&a->data[i], &want[i], sizeof(double)) != 0) {
      print_error("element %zu: expected %.17g got %.17g\n", i, want[i], a->data[i]);
      fail();
    }
  }
}

/* Reads a file from npy_data and asserts success. */
static void read_data_file(const char *file, NpyArray *a) {
  char msg[MSGLEN];
  int rc = npy_read(path_in(data_dir(), file), 1 << 20, a, msg, sizeof msg);
  if (rc != 0) print_error("%s\n", msg);
  assert_int_equal(rc, 0);
}

static int group_setup(void **state) {
  (void)state;
  const char *base = getenv("TMPDIR");
  snprintf(tmp_dir, sizeof tmp_dir, "%s/test_npy.XXXXXX", base != NULL && *base != '\0' ? base : "/tmp");
  return mkdtemp(tmp_dir) == NULL ? -1 : 0;
}

static int group_teardown(void **state) {
  (void)state;
  return rmdir(tmp_dir) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------------------
 * Round trips and the written layout
 * ------------------------------------------------------------------------- */

/* Writes and reads back arrays of rank 0..6 with special values, bit-exact. */
static void test_roundtrip_ranks(void **state) {
  (void)state;
  static const size_t shapes[7][6] = {{0}, {5}, {3, 4}, {2, 3, 4}, {2, 1, 3, 2}, {1, 2, 3, 1, 2}, {2, 2, 1, 3, 1, 2}};
  for (int r = 0; r <= 6; r++) {
    size_t n = 1;
    for (int k = 0; k < r; k++) n *= shapes[r][k];
    double *v = malloc(n * sizeof *v);
    assert_non_null(v);
    for (size_t i = 0; i < n; i++) v[i] = (double)i * 0.5 - 3.0 + (double)r / 3.0;
    static const double special[] = {NAN, INFINITY, -INFINITY, -0.0, DBL_MIN / 4, DBL_MAX, 1.0 / 3.0};
    for (size_t i = 0; i < n && i < 7; i++) v[(i * 5) % n] = special[(i + (size_t)r) % 7];
    const char *p = path_in(tmp_dir, "rt.npy");
    char path[1200];
    snprintf(path, sizeof path, "%s", p);
    char msg[MSGLEN];
    assert_int_equal(npy_write(path, v, r, shapes[r], msg, sizeof msg), 0);
    NpyArray a;
    int rc = npy_read(path, SIZE_MAX, &a, msg, sizeof msg);
    if (rc != 0) print_error("%s\n", msg);
    assert_int_equal(rc, 0);
    check_shape(&a, r, shapes[r]);
    check_values(&a, v, n);
    npy_free(&a);
    assert_null(a.data);
    npy_free(&a); /* twice is harmless */
    free(v);
    assert_int_equal(remove(path), 0);
  }
}

/* The written file is byte-identical to numpy.save's output for (3, 4). */
static void test_write_layout(void **state) {
  (void)state;
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = i;
  size_t shape[2] = {3, 4};
  char path[1200];
  snprintf(path, sizeof path, "%s", path_in(tmp_dir, "layout.npy"));
  char msg[MSGLEN];
  assert_int_equal(npy_write(path, v, 2, shape, msg, sizeof msg), 0);
  unsigned char buf[512];
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  assert_int_equal(n, 128 + 96);
  assert_memory_equal(buf, "\x93NUMPY\x01\x00\x76\x00", 10);
  const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";
  assert_memory_equal(buf + 10, dict, strlen(dict));
  for (size_t i = 10 + strlen(dict); i < 127; i++) assert_int_equal(buf[i], ' ');
  assert_int_equal(buf[127], '\n');
  assert_memory_equal(buf + 128 + 8, "\x00\x00\x00\x00\x00\x00\xf0\x3f", 8); /* 1.0 little-endian */

  /* the same bytes as the file made by make_npy_data.py for (2, 3) */
  double w[6] = {0, 1, 2, 3, 4, 5};
  size_t s23[2] = {2, 3};
  assert_int_equal(npy_write(path, w, 2, s23, msg, sizeof msg), 0);
  f = fopen(path, "rb");
  assert_non_null(f);
  n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  unsigned char ref[512];
  f = fopen(path_in(data_dir(), "f8_2x3.npy"), "rb");
  assert_non_null(f);
  size_t m = fread(ref, 1, sizeof ref, f);
  fclose(f);
  assert_int_equal(n, m);
  assert_memory_equal(buf, ref, n);
  assert_int_equal(remove(path), 0);
}

/* Shapes ()/(5,)/(3, 4) in the header as NumPy writes them. */
static void test_write_header_shapes(void **state) {
  (void)state;
  double v[5] = {1, 2, 3, 4, 5};
  size_t s5[1] = {5};
  char path[1200];
  snprintf(path, sizeof path, "%s", path_in(tmp_dir, "shapes.npy"));
  char msg[MSGLEN];
  unsigned char buf[256];
  assert_int_equal(npy_write(path, v, 1, s5, msg, sizeof msg), 0);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  assert_int_equal(n, 128 + 40);
  assert_non_null(strstr((char *)buf + 10, "'shape': (5,), }"));
  assert_int_equal(npy_write(path, v, 0, NULL, msg, sizeof msg), 0);
  f = fopen(path, "rb");
  assert_non_null(f);
  n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  assert_int_equal(n, 128 + 8);
  buf[127] = '\0';
  assert_non_null(strstr((char *)buf + 10, "'shape': (), }"));
  assert_int_equal(remove(path), 0);
}

/* ---------------------------------------------------------------------------
 * Dtypes, versions, Fortran order
 * ------------------------------------------------------------------------- */

/* '<f4' data is widened to double exactly (in memory and from a file). */
static void test_f4(void **state) {
  (void)state;
  float fv[5] = {1.5f, -2.25f, 0.1f, 3.4e38f, -0.0f};
  unsigned char *d = f4_bytes(fv, 5);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }\n", d, 20, &len);
  free(d);
  NpyArray a;
  expect_ok(img, len, &a);
  size_t s[1] = {5};
  check_shape(&a, 1, s);
  double want[5] = {1.5, -2.25, (double)0.1f, (double)3.4e38f, -0.0};
  check_values(&a, want, 5);
  npy_free(&a);

  read_data_file("f4_4.npy", &a);
  size_t s4[1] = {4};
  check_shape(&a, 1, s4);
  double want4[4] = {1.5, -2.25, 0.0, (double)1e-3f};
  check_values(&a, want4, 4);
  npy_free(&a);
}

/* Version 2.0 (4-byte header length) and 3.0 (utf8 header) images. */
static void test_versions_2_and_3(void **state) {
  (void)state;
  double v[6] = {1, 2, 3, 4, 5, 6};
  unsigned char *d = f8_bytes(v, 6);
  size_t s[2] = {3, 2};
  for (int major = 1; major <= 3; major++) {
    size_t len;
    unsigned char *img = mk(major, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }   \n", d, 48, &len);
    NpyArray a;
    expect_ok(img, len, &a);
    check_shape(&a, 2, s);
    check_values(&a, v, 6);
    npy_free(&a);
  }
  free(d);

  NpyArray a;
  read_data_file("v2_scalar.npy", &a);
  check_shape(&a, 0, NULL);
  double want = 42.0;
  check_values(&a, &want, 1);
  npy_free(&a);

  read_data_file("v3_f4_5.npy", &a);
  size_t s5[1] = {5};
  check_shape(&a, 1, s5);
  double want5[5] = {1, 2, 3, 4, 5};
  check_values(&a, want5, 5);
  npy_free(&a);

  /* a large version 2.0 header (300 KB of padding) is fine */
  size_t big = 300000;
  char *hdr = malloc(big + 1);
  assert_non_null(hdr);
  const char *dict = "{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}";
  memset(hdr, ' ', big);
  memcpy(hdr, dict, strlen(dict));
  hdr[big - 1] = '\n';
  hdr[big] = '\0';
  d = f8_bytes(v, 2);
  size_t len;
  unsigned char *img = mk(2, hdr, d, 16, &len);
  free(d);
  free(hdr);
  expect_ok(img, len, &a);
  check_values(&a, v, 2);
  npy_free(&a);
}

/* Fortran order (2, 3): stored [1, 4, 2, 5, 3, 6] is [[1, 2, 3], [4, 5, 6]]. */
static void test_fortran_2x3(void **state) {
  (void)state;
  double stored[6] = {1, 4, 2, 5, 3, 6};
  unsigned char *d = f8_bytes(stored, 6);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }\n", d, 48, &len);
  free(d);
  NpyArray a;
  expect_ok(img, len, &a);
  size_t s[2] = {2, 3};
  check_shape(&a, 2, s);
  double want[6] = {1, 2, 3, 4, 5, 6};
  check_values(&a, want, 6);
  npy_free(&a);

  read_data_file("fortran_2x3.npy", &a);
  check_shape(&a, 2, s);
  check_values(&a, want, 6);
  npy_free(&a);
}

/*
 * Fortran order (2, 2, 3), '<f4': the element (i, j, k) is stored at offset
 * i + 2j + 4k and the file holds 0, 1, ..., 11, so C position 6i + 3j + k
 * must hold i + 2j + 4k.  Written out by hand in C order:
 * (0,0,0)=0 (0,0,1)=4 (0,0,2)=8 (0,1,0)=2 (0,1,1)=6 (0,1,2)=10
 * (1,0,0)=1 (1,0,1)=5 (1,0,2)=9 (1,1,0)=3 (1,1,1)=7 (1,1,2)=11
 */
static void test_fortran_2x2x3(void **state) {
  (void)state;
  float stored[12];
  for (int i = 0; i < 12; i++) stored[i] = (float)i;
  unsigned char *d = f4_bytes(stored, 12);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2, 3), }\n", d, 48, &len);
  free(d);
  NpyArray a;
  expect_ok(img, len, &a);
  size_t s[3] = {2, 2, 3};
  check_shape(&a, 3, s);
  double want[12] = {0, 4, 8, 2, 6, 10, 1, 5, 9, 3, 7, 11};
  check_values(&a, want, 12);
  npy_free(&a);

  /* rank 1 and rank 0 are the same in both orders */
  double v[3] = {7, 8, 9};
  d = f8_bytes(v, 3);
  img = mk(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3,), }\n", d, 24, &len);
  free(d);
  expect_ok(img, len, &a);
  check_values(&a, v, 3);
  npy_free(&a);
}

/* Fortran order with unit extents mixed in, checked against an index formula. */
static void test_fortran_general(void **state) {
  (void)state;
  size_t s[5] = {3, 1, 4, 2, 1}; /* 24 elements */
  double stored[24];
  for (int i = 0; i < 24; i++) stored[i] = i;
  unsigned char *d = f8_bytes(stored, 24);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 1, 4, 2, 1), }\n", d, 192, &len);
  free(d);
  NpyArray a;
  expect_ok(img, len, &a);
  check_shape(&a, 5, s);
  size_t c = 0;
  for (size_t i0 = 0; i0 < 3; i0++)
    for (size_t i2 = 0; i2 < 4; i2++)
      for (size_t i3 = 0; i3 < 2; i3++) {
        double f = (double)(i0 + 3 * i2 + 12 * i3);
        assert_true(a.data[c] == f);
        c++;
      }
  npy_free(&a);
}

/* Header variants the parser must accept. */
static void test_header_variants(void **state) {
  (void)state;
  static const char *const ok[] = {
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }\n",
      "{'shape': (3, 4), 'descr': '<f8', 'fortran_order': False}",
      "{'fortran_order': False, 'shape': (3,4), 'descr': '<f8',}",
      "  {  'descr'  :  '<f8'  ,\t'fortran_order':False,\n'shape':( 3 , 4 , ) ,  }  \n\n",
      "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (3, 4)}",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 4L), }",
      "{'descr':'=f8','fortran_order':False,'shape':(3,4)}",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }\r\n",
  };
  double v[12];
  for (int i = 0; i < 12; i++) v[i] = i * 1.25;
  unsigned char *d = f8_bytes(v, 12);
  size_t s[2] = {3, 4};
  for (size_t t = 0; t < sizeof ok / sizeof ok[0]; t++) {
    size_t len;
    unsigned char *img = mk(1, ok[t], d, 96, &len);
    NpyArray a;
    expect_ok(img, len, &a);
    check_shape(&a, 2, s);
    check_values(&a, v, 12);
    npy_free(&a);
  }
  free(d);

  NpyArray a;
  read_data_file("py2_long_2x2.npy", &a);
  size_t s22[2] = {2, 2};
  check_shape(&a, 2, s22);
  double want[4] = {1, 2, 3, 4};
  check_values(&a, want, 4);
  npy_free(&a);

  read_data_file("f8_2x3.npy", &a);
  size_t s23[2] = {2, 3};
  check_shape(&a, 2, s23);
  double want6[6] = {0, 1, 2, 3, 4, 5};
  check_values(&a, want6, 6);
  npy_free(&a);
}

/* ---------------------------------------------------------------------------
 * Malformed inputs, one test per kind
 * ------------------------------------------------------------------------- */

static void test_bad_magic(void **state) {
  (void)state;
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", "\0\0\0\0\0\0\0\0", 8, &len);
  img[1] = 'M';
  expect_fail(img, len, "not a .npy file (bad magic)");
  unsigned char *txt = malloc(5);
  memcpy(txt, "hello", 5);
  expect_fail(txt, 5, "not a .npy file (bad magic)");
  expect_fail(NULL, 0, "empty file");
}

static void test_bad_version(void **state) {
  (void)state;
  size_t len;
  unsigned char *img =
      mk_full(4, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", (size_t)-1, "\0\0\0\0\0\0\0\0", 8, &len);
  expect_fail(img, len, "unsupported .npy format version 4.0 (supported: 1.0, 2.0, 3.0)");
  img = mk_full(1, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", (size_t)-1, "\0\0\0\0\0\0\0\0", 8, &len);
  expect_fail(img, len, "version 1.1");
  img = mk_full(0, 0, "{}", (size_t)-1, "", 0, &len);
  expect_fail(img, len, "version 0.0");
}

static void test_truncated_header(void **state) {
  (void)state;
  /* shorter than the fixed prefix */
  unsigned char *img = malloc(7);
  memcpy(img, "\x93NUMPY\x01", 7);
  expect_fail(img, 7, "truncated: 7 bytes is too short for a .npy header");
  img = malloc(3);
  memcpy(img, "\x93NU", 3);
  expect_fail(img, 3, "truncated");
  img = malloc(11);
  memcpy(img, "\x93NUMPY\x02\x00\x10\x00\x00", 11);
  expect_fail(img, 11, "too short for a version 2.0 .npy header");
  /* header text cut off in the middle of the dict */
  size_t len;
  img = mk(1, "{'descr': '<f8', 'fortran_or", "", 0, &len);
  expect_fail(img, len, "malformed header");
}

static void test_header_length_beyond_file(void **state) {
  (void)state;
  size_t len;
  unsigned char *img = mk_full(1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 5000, "", 0, &len);
  expect_fail(img, len, "truncated header: header length is 5000 bytes but only 55 bytes follow");
  img = mk_full(2, 0, "{}", 0xffffffffu, "", 0, &len);
  expect_fail(img, len, "header length 4294967295 exceeds the limit");
}

static void test_missing_key(void **state) {
  (void)state;
  expect_header_fail("{'descr': '<f8', 'fortran_order': False}", 1, "no 'shape' key");
  expect_header_fail("{'descr': '<f8', 'shape': (1,)}", 1, "no 'fortran_order' key");
  expect_header_fail("{'fortran_order': False, 'shape': ()}", 1, "no 'descr' key");
  expect_header_fail("{}", 1, "no 'descr' key");
}

static void test_bad_shape_tuple(void **state) {
  (void)state;
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (5)}", 5, "'shape' (N) is not a tuple");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': [5]}", 5, "'shape' must be a tuple");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (3,,4)}", 12, "expected an integer extent");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}", 1, "negative extent");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0,)}", 2, "expected ',' or ')' in 'shape'");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (a,)}", 2, "expected an integer extent");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3}", 6, "expected ',' or ')'");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (,)}", 1, "expected an integer extent");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': 5}", 5, "'shape' must be a tuple");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}", 1,
                     "extent in 'shape' is too large");
}

static void test_unsupported_dtype(void **state) {
  (void)state;
  expect_header_fail("{'descr': '<i8', 'fortran_order': False, 'shape': (2,)}", 2,
                     "unsupported dtype '<i8' (expected '<f8' or '<f4')");
  expect_header_fail("{'descr': '<c16', 'fortran_order': False, 'shape': (1,)}", 2, "unsupported dtype '<c16'");
  expect_header_fail("{'descr': '|O', 'fortran_order': False, 'shape': (2,)}", 2, "unsupported dtype '|O'");
  expect_header_fail("{'descr': '|f8', 'fortran_order': False, 'shape': (2,)}", 2, "unsupported dtype '|f8'");
  expect_header_fail("{'descr': '<f2', 'fortran_order': False, 'shape': (2,)}", 1, "unsupported dtype '<f2'");
  expect_header_fail("{'descr': [('a', '<f8'), ('b', '<f8')], 'fortran_order': False, 'shape': (1,)}", 2,
                     "structured dtypes");
  expect_header_fail("{'descr': 'f\\x01\\n', 'fortran_order': False, 'shape': (1,)}", 1, "unsupported dtype 'f");
  expect_header_fail("{'descr': 8, 'fortran_order': False, 'shape': (1,)}", 1, "'descr' must be a quoted string");

  NpyArray a;
  char msg[MSGLEN];
  assert_int_equal(npy_read(path_in(data_dir(), "i8_3.npy"), 1 << 20, &a, msg, sizeof msg), -1);
  check_msg(msg, path_in(data_dir(), "i8_3.npy"), "unsupported dtype '<i8'");
}

static void test_big_endian(void **state) {
  (void)state;
  expect_header_fail("{'descr': '>f8', 'fortran_order': False, 'shape': (2,)}", 2,
                     "big-endian data ('>f8') is not supported");
  expect_header_fail("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}", 1,
                     "big-endian data ('>f4') is not supported");
  NpyArray a;
  char msg[MSGLEN];
  assert_int_equal(npy_read(path_in(data_dir(), "be_f8_2.npy"), 1 << 20, &a, msg, sizeof msg), -1);
  check_msg(msg, path_in(data_dir(), "be_f8_2.npy"), "big-endian data ('>f8') is not supported");
}

static void test_truncated_data(void **state) {
  (void)state;
  double v[12] = {0};
  unsigned char *d = f8_bytes(v, 12);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", d, 56, &len);
  expect_fail(img, len, "truncated: header says 12 elements but the file holds 7");
  img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", d, 60, &len);
  expect_fail(img, len, "the file holds 7 (and 4 stray bytes)");
  img = mk(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", d, 0, &len);
  expect_fail(img, len, "truncated: header says 1 element but the file holds 0");
  free(d);
}

static void test_trailing_data(void **state) {
  (void)state;
  double v[3] = {0};
  unsigned char *d = f8_bytes(v, 3);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", d, 24, &len);
  expect_fail(img, len, "8 unexpected bytes after the data (header says 2 elements of '<f8' = 16 bytes)");
  img = mk(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", d, 9, &len);
  expect_fail(img, len, "1 unexpected byte after the data");
  free(d);
}

static void test_shape_overflow(void **state) {
  (void)state;
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2)}", 1,
                     "shape (4294967296, 4294967296, 2) is too large (the element count overflows)");
  expect_header_fail("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,)}", 1,
                     "is too large (the byte size overflows)");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615, 18446744073709551615)}",
                     1, "too large");
  /* 65 dimensions of extent 1 */
  char hdr[512];
  int n = snprintf(hdr, sizeof hdr, "{'descr': '<f8', 'fortran_order': False, 'shape': (");
  for (int k = 0; k < 65; k++) n += snprintf(hdr + n, sizeof hdr - (size_t)n, "1,");
  snprintf(hdr + n, sizeof hdr - (size_t)n, ")}");
  expect_header_fail(hdr, 1, "'shape' has more than 64 dimensions");
}

static void test_zero_extent(void **state) {
  (void)state;
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 0)}", 0,
                     "shape (3, 0) has a zero extent (teil extents must be >= 1)");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (0,)}", 0, "shape (0,) has a zero extent");
}

static void test_max_bytes(void **state) {
  (void)state;
  double v[12] = {0};
  unsigned char *d = f8_bytes(v, 12);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", d, 96, &len);
  expect_fail_max(img, len, 95, "array too large: shape (3, 4) needs 96 bytes as doubles, the limit is 95");
  /* '<f4' data counts as doubles: 12 floats need 96 bytes */
  img = mk(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", d, 48, &len);
  expect_fail_max(img, len, 64, "needs 96 bytes");
  /* refused before any data is looked at, even if the file is short */
  img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000, 100000000), }", "", 0, &len);
  expect_fail_max(img, len, 1u << 30, "array too large");
  /* exactly at the limit is fine */
  img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", d, 96, &len);
  NpyArray a;
  char msg[MSGLEN];
  assert_int_equal(parse_exact(img, len, 96, &a, msg), 0);
  free(img);
  npy_free(&a);
  free(d);
}

/* More syntax errors: the parser names what it expected and where. */
static void test_malformed_dict(void **state) {
  (void)state;
  expect_header_fail("['descr', '<f8']", 1, "expected '{' starting the header dict at byte 0 of the header");
  expect_header_fail("{'descr' '<f8', 'fortran_order': False, 'shape': ()}", 1, "expected ':' after a key");
  expect_header_fail("{'descr': '<f8' 'fortran_order': False, 'shape': ()}", 1, "expected ',' or '}' after a value");
  expect_header_fail("{'descr': '<f8, 'fortran_order': False, 'shape': ()}", 1, "malformed header");
  expect_header_fail("{'descr': '<f8', 'fortran_order': 'no', 'shape': ()}", 1,
                     "'fortran_order' must be True or False");
  expect_header_fail("{'descr': '<f8', 'fortran_order': Truely, 'shape': ()}", 1,
                     "'fortran_order' must be True or False");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': ()} x", 1,
                     "unexpected text after the closing '}'");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': ()", 1, "at the end of the header");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'extra': 1}", 1,
                     "unexpected key 'extra' in header");
  expect_header_fail("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': ()}", 1,
                     "key 'descr' appears twice");
  expect_header_fail("{, 'descr': '<f8', 'fortran_order': False, 'shape': ()}", 1, "expected a quoted key");
  expect_header_fail("{'descr': '<f8',, 'fortran_order': False, 'shape': ()}", 1, "expected a quoted key");
  expect_header_fail("{'desc\nr': '<f8', 'fortran_order': False, 'shape': ()}", 1, "unterminated string");
  expect_header_fail("{'descr': '<f8', 'fortran_order': False, 'shape': ()}\x01", 1, "near \"\\x01\"");
  expect_header_fail("", 1, "expected '{'");
  expect_header_fail("{'descr': '\\", 1, "unterminated string");
}

/* ---------------------------------------------------------------------------
 * Files, writing errors, messages, helpers
 * ------------------------------------------------------------------------- */

/* Writes raw bytes to a file in the temporary directory. */
static void write_raw(const char *path, const unsigned char *b, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

static void test_read_errors(void **state) {
  (void)state;
  NpyArray a;
  char msg[MSGLEN];
  char path[1200];
  snprintf(path, sizeof path, "%s", path_in(tmp_dir, "missing.npy"));
  assert_int_equal(npy_read(path, SIZE_MAX, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "cannot open for reading: ");
  assert_null(a.data);

  assert_int_equal(npy_read(tmp_dir, SIZE_MAX, &a, msg, sizeof msg), -1);
  check_msg(msg, tmp_dir, tmp_dir); /* a directory: open or read error */

  /* empty file */
  snprintf(path, sizeof path, "%s", path_in(tmp_dir, "empty.npy"));
  write_raw(path, (const unsigned char *)"", 0);
  assert_int_equal(npy_read(path, SIZE_MAX, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "empty file");

  /* truncated and trailing data in a file */
  double v[4] = {1, 2, 3, 4};
  unsigned char *d = f8_bytes(v, 4);
  size_t len;
  unsigned char *img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", d, 32, &len);
  write_raw(path, img, len - 1);
  assert_int_equal(npy_read(path, SIZE_MAX, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "truncated: header says 4 elements but the file holds 3 (and 7 stray bytes)");
  free(img);
  img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", d, 32, &len);
  write_raw(path, img, len);
  assert_int_equal(npy_read(path, SIZE_MAX, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "8 unexpected bytes after the data");
  assert_int_equal(npy_read(path, 16, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "array too large: shape (3,) needs 24 bytes as doubles, the limit is 16");
  free(img);

  /* a small array followed by more junk than the read cap allows */
  size_t junk = NPY_MAX_HEADER + 4096;
  unsigned char *jd = calloc(junk, 1);
  assert_non_null(jd);
  img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", jd, junk, &len);
  write_raw(path, img, len);
  assert_int_equal(npy_read(path, 8, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "unexpected bytes after the data (header says 1 element of '<f8' = 8 bytes)");
  assert_int_equal(npy_read(path, SIZE_MAX, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "unexpected bytes after the data");
  free(img);
  free(jd);

  /* and a file with a valid header but large data beyond a small limit */
  jd = calloc(8 * 300000, 1);
  assert_non_null(jd);
  img = mk(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (300000,), }", jd, 8 * 300000, &len);
  write_raw(path, img, len);
  assert_int_equal(npy_read(path, 1000, &a, msg, sizeof msg), -1);
  check_msg(msg, path, "array too large: shape (300000,) needs 2400000 bytes");
  assert_int_equal(npy_read(path, SIZE_MAX, &a, msg, sizeof msg), 0);
  assert_int_equal(a.count, 300000);
  npy_free(&a);
  free(img);
  free(jd);
  free(d);
  assert_int_equal(remove(path), 0);
}

static void test_write_errors(void **state) {
  (void)state;
  double v[4] = {1, 2, 3, 4};
  char msg[MSGLEN];
  char path[1200];
  snprintf(path, sizeof path, "%s", path_in(tmp_dir, "no/such/dir/x.npy"));
  size_t s[2] = {2, 2};
  assert_int_equal(npy_write(path, v, 2, s, msg, sizeof msg), -1);
  check_msg(msg, path, "cannot open for writing: ");

  snprintf(path, sizeof path, "%s", path_in(tmp_dir, "w.npy"));
  size_t z[2] = {2, 0};
  assert_int_equal(npy_write(path, v, 2, z, msg, sizeof msg), -1);
  check_msg(msg, path, "cannot write shape (2, 0): zero extent");
  size_t big[2] = {SIZE_MAX / 2, 3};
  assert_int_equal(npy_write(path, v, 2, big, msg, sizeof msg), -1);
  check_msg(msg, path, "too large");
  assert_int_equal(npy_write(path, v, 65, s, msg, sizeof msg), -1);
  check_msg(msg, path, "cannot write an array of rank 65 (supported: 0..64)");
  assert_int_equal(npy_write(path, v, -1, s, msg, sizeof msg), -1);
  check_msg(msg, path, "rank -1");
  assert_int_equal(npy_write(path, NULL, 2, s, msg, sizeof msg), -1);
  check_msg(msg, path, "no data");
  assert_int_equal(npy_write(path, v, 2, NULL, msg, sizeof msg), -1);
  check_msg(msg, path, "no shape");
  assert_int_equal(access(path, F_OK), -1); /* nothing was created */
  if (access("/dev/full", W_OK) == 0) {
    assert_int_equal(npy_write("/dev/full", v, 2, s, msg, sizeof msg), -1);
    check_msg(msg, "/dev/full", "write error: ");
  }

  /* 64 dimensions is the limit and round-trips */
  size_t s64[64];
  for (int k = 0; k < 64; k++) s64[k] = 1;
  s64[10] = 2;
  s64[63] = 2;
  assert_int_equal(npy_write(path, v, 64, s64, msg, sizeof msg), 0);
  NpyArray a;
  assert_int_equal(npy_read(path, SIZE_MAX, &a, msg, sizeof msg), 0);
  check_shape(&a, 64, s64);
  check_values(&a, v, 4);
  npy_free(&a);
  assert_int_equal(remove(path), 0);
}

/* Messages are safe with small, zero-size or missing buffers. */
static void test_message_buffers(void **state) {
  (void)state;
  static const unsigned char bad[] = "not npy at all";
  NpyArray a;
  char msg[16];
  memset(msg, 'z', sizeof msg);
  assert_int_equal(npy_parse(bad, sizeof bad - 1, "some/long/file/name.npy", SIZE_MAX, &a, msg, 8), -1);
  assert_string_equal(msg, "some/lo");
  assert_int_equal(msg[8], 'z');
  assert_int_equal(npy_parse(bad, sizeof bad - 1, "f", SIZE_MAX, &a, msg, 1), -1);
  assert_string_equal(msg, "");
  assert_int_equal(npy_parse(bad, sizeof bad - 1, "f", SIZE_MAX, &a, NULL, 0), -1);
  assert_int_equal(npy_parse(bad, sizeof bad - 1, NULL, SIZE_MAX, &a, msg, sizeof msg), -1);
  assert_int_equal(npy_parse(bad, sizeof bad - 1, "f", SIZE_MAX, NULL, msg, sizeof msg), -1);
  /* a newline in the name does not make the message two lines */
  char big[MSGLEN];
  assert_int_equal(npy_parse(bad, sizeof bad - 1, "a\nb", SIZE_MAX, &a, big, sizeof big), -1);
  assert_string_equal(big, "a b: not a .npy file (bad magic)");
  /* bytes from the file are shown escaped */
  size_t len;
  unsigned char *img = mk(1, "{'descr': '\x80\x1b[31m', 'fortran_order': False, 'shape': ()}", "", 0, &len);
  expect_fail(img, len, "unsupported dtype '\\x80\\x1b[31m'");
}

static void test_shape_str(void **state) {
  (void)state;
  char buf[64];
  size_t s[3] = {3, 4, 5};
  npy_shape_str(0, NULL, buf, sizeof buf);
  assert_string_equal(buf, "()");
  npy_shape_str(1, s, buf, sizeof buf);
  assert_string_equal(buf, "(3,)");
  npy_shape_str(2, s, buf, sizeof buf);
  assert_string_equal(buf, "(3, 4)");
  npy_shape_str(3, s, buf, sizeof buf);
  assert_string_equal(buf, "(3, 4, 5)");
  npy_shape_str(3, s, buf, 8);
  assert_string_equal(buf, "(3, ...");
  npy_shape_str(3, s, buf, 3);
  assert_string_equal(buf, "(3");
  npy_shape_str(-1, s, buf, sizeof buf);
  assert_string_equal(buf, "(?)");
  npy_shape_str(2, NULL, buf, sizeof buf);
  assert_string_equal(buf, "(?)");
  size_t m[2] = {SIZE_MAX, 1};
  npy_shape_str(2, m, buf, sizeof buf);
  assert_string_equal(buf, "(18446744073709551615, 1)");
  npy_shape_str(2, s, NULL, 10); /* no crash */
  buf[0] = 'q';
  npy_shape_str(2, s, buf, 0);
  assert_int_equal(buf[0], 'q');
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip_ranks),
      cmocka_unit_test(test_write_layout),
      cmocka_unit_test(test_write_header_shapes),
      cmocka_unit_test(test_f4),
      cmocka_unit_test(test_versions_2_and_3),
      cmocka_unit_test(test_fortran_2x3),
      cmocka_unit_test(test_fortran_2x2x3),
      cmocka_unit_test(test_fortran_general),
      cmocka_unit_test(test_header_variants),
      cmocka_unit_test(test_bad_magic),
      cmocka_unit_test(test_bad_version),
      cmocka_unit_test(test_truncated_header),
      cmocka_unit_test(test_header_length_beyond_file),
      cmocka_unit_test(test_missing_key),
      cmocka_unit_test(test_bad_shape_tuple),
      cmocka_unit_test(test_unsupported_dtype),
      cmocka_unit_test(test_big_endian),
      cmocka_unit_test(test_truncated_data),
      cmocka_unit_test(test_trailing_data),
      cmocka_unit_test(test_shape_overflow),
      cmocka_unit_test(test_zero_extent),
      cmocka_unit_test(test_max_bytes),
      cmocka_unit_test(test_malformed_dict),
      cmocka_unit_test(test_read_errors),
      cmocka_unit_test(test_write_errors),
      cmocka_unit_test(test_message_buffers),
      cmocka_unit_test(test_shape_str),
  };
  return cmocka_run_group_tests_name("npy", tests, group_setup, group_teardown);
}
