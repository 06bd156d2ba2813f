/*
 * npy.c - reading and writing NumPy .npy files for teil.
 *
 * A .npy file is: the magic "\x93NUMPY", a major and a minor version byte,
 * a little-endian header length (2 bytes in version 1.0, 4 bytes in 2.0 and
 * 3.0), the header, then the raw array data.  The header is the text of a
 * Python dict literal such as
 *     {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and a final newline.  Versions 1.0 and 2.0 encode the
 * header in latin-1, 3.0 in UTF-8; every valid teil header is plain ASCII, so
 * the parser treats the header as bytes and any non-ASCII byte simply fails to
 * match the grammar.
 *
 * The header parser is a small hand-written recursive-descent parser over
 * exactly the header bytes: keys may come in any order, whitespace (space,
 * tab, CR, LF) may appear between tokens, strings may use ' or " quotes, a
 * trailing comma is allowed in the dict and in the shape tuple, and Python 2
 * long suffixes ("3L") are accepted in the shape.  Anything else - unknown or
 * duplicate keys, missing keys, a shape that is not a tuple of non-negative
 * integers, text after the closing brace - is refused with a message naming
 * what was expected and where.
 *
 * Choices made here (binding for the rest of teil):
 *  - dtypes: '<f8' and '<f4' (the latter widened to double exactly); '=f8' and
 *    '=f4' are accepted on little-endian hosts only.  Big-endian, integer,
 *    complex, object and structured dtypes are refused.
 *  - Fortran order: the result is converted to C order.  The array handed out
 *    has the SAME shape as in the header and the same value at every index as
 *    the array NumPy would load; only the storage order changes (the index
 *    order is transposed while copying).  The caller never sees Fortran order.
 *  - Data length: must be exactly count * itemsize bytes.  A short file is
 *    refused ("truncated"), and so are trailing bytes after the data: teil
 *    files hold one array, and extra bytes usually mean a wrong dtype or shape.
 *  - Extents must be >= 1 (teil has no empty tensors); rank is at most
 *    NPY_MAX_DIMS; the header is at most NPY_MAX_HEADER bytes.
 *  - Sizes: every product (shape, count * itemsize, count * sizeof(double))
 *    is checked for size_t overflow before it is used, and max_bytes is
 *    compared with count * sizeof(double) before anything is allocated.
 *
 * The parser never reads outside [buf, buf + len) and is fuzzed (see
 * tests/fuzz/fuzz_npy.c).  Data bytes are decoded explicitly as little-endian,
 * so the reader does not depend on the host byte order or on alignment.
 */
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(double) == 8, "teil needs 64-bit doubles");
_Static_assert(sizeof(float) == 4, "teil needs 32-bit floats");

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_EXPECTED "expected '<f8' or '<f4'"

#if defined(__GNUC__)
#define NPY_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define NPY_PRINTF(a, b)
#endif

/* Everything the header says, plus derived sizes. */
typedef struct NpyHeader {
  int ndim;
  size_t shape[NPY_MAX_DIMS];
  size_t count;      /* product of shape */
  size_t itemsize;   /* 8 for f8, 4 for f4 */
  int fortran;       /* fortran_order */
  char descr[8];     /* the accepted descr, for messages */
  size_t data_off;   /* offset of the data from the start of the file */
  size_t data_bytes; /* count * itemsize */
} NpyHeader;

/* Cursor over the header text, with what is needed to report errors. */
typedef struct NpyLex {
  const unsigned char *begin, *p, *end;
  const char *name;
  char *msg;
  size_t msglen;
} NpyLex;

static void npy_msg(char *msg, size_t msglen, const char *name, const char *fmt, ...) NPY_PRINTF(4, 5);

/*
 * Writes "NAME: " followed by the formatted text into msg (if there is one),
 * truncating as needed, and replaces any CR/LF by spaces so the message is
 * always a single line even if the caller's name contains a newline.
 */
static void npy_msg(char *msg, size_t msglen, const char *name, const char *fmt, ...) {
  if (msg == NULL || msglen == 0) return;
  int n = snprintf(msg, msglen, "%s: ", name != NULL ? name : "(npy)");
  if (n < 0) {
    msg[0] = '\0';
    return;
  }
  if ((size_t)n < msglen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, msglen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  for (char *c = msg; *c != '\0'; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
}

/*
 * Copies up to 'max' bytes of untrusted text into out as printable ASCII
 * (other bytes, quotes and backslashes become \xNN), adding "..." if the text
 * was longer.  Used to echo parts of a file in messages without emitting
 * control characters or unbalanced quotes.
 */
static void npy_sanitize(const unsigned char *s, size_t n, size_t max, char *out, size_t outlen) {
  size_t o = 0;
  if (outlen == 0) return;
  for (size_t i = 0; i < n && i < max; i++) {
    unsigned char c = s[i];
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'' && c != '"') {
      if (o + 1 >= outlen) break;
      out[o++] = (char)c;
    } else {
      if (o + 4 >= outlen) break;
      snprintf(out + o, outlen - o, "\\x%02x", c);
      o += 4;
    }
  }
  out[o] = '\0';
  if (n > max && o + 3 < outlen) {
    memcpy(out + o, "...", 4);
  }
}

/* "s" unless n is 1, for messages. */
static const char *npy_plural(size_t n) { return n == 1 ? "" : "s"; }

/* Returns 1 on a little-endian host. */
static int npy_host_little(void) {
  const uint16_t one = 1;
  unsigned char b;
  memcpy(&b, &one, 1);
  return b == 1;
}

/* Decodes a little-endian IEEE double at p (no alignment needed). */
static double npy_get_f8(const unsigned char *p) {
  uint64_t u = 0;
  for (int i = 7; i >= 0; i--) u = (u << 8) | p[i];
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* Decodes a little-endian IEEE float at p and widens it (exactly) to double. */
static double npy_get_f4(const unsigned char *p) {
  uint32_t u = 0;
  for (int i = 3; i >= 0; i--) u = (u << 8) | p[i];
  float f;
  memcpy(&f, &u, sizeof f);
  return (double)f;
}

/* Encodes d as 8 little-endian bytes at p. */
static void npy_put_f8(unsigned char *p, double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  for (int i = 0; i < 8; i++) {
    p[i] = (unsigned char)(u & 0xffu);
    u >>= 8;
  }
}

/* ---------------------------------------------------------------------------
 * Shape formatting
 * ------------------------------------------------------------------------- */

/* Appends s to buf[*pos..] without overflowing; sets *trunc if cut short. */
static void npy_append(char *buf, size_t buflen, size_t *pos, int *trunc, const char *s) {
  size_t n = strlen(s);
  if (*trunc) return;
  if (*pos + n >= buflen) {
    size_t room = buflen - 1 - *pos;
    memcpy(buf + *pos, s, room);
    *pos += room;
    *trunc = 1;
  } else {
    memcpy(buf + *pos, s, n);
    *pos += n;
  }
  buf[*pos] = '\0';
}

/*
 * Formats a shape as NumPy's repr of a tuple: "()", "(3,)", "(3, 4)".  An
 * invalid rank (or a NULL shape with rank > 0) gives "(?)".  If the text does
 * not fit, it is cut and ends in "..." (when buflen >= 4).
 */
void npy_shape_str(int ndim, const size_t *shape, char *buf, size_t buflen) {
  size_t pos = 0;
  int trunc = 0;
  char piece[32];
  if (buf == NULL || buflen == 0) return;
  buf[0] = '\0';
  if (ndim < 0 || ndim > NPY_MAX_DIMS || (ndim > 0 && shape == NULL)) {
    npy_append(buf, buflen, &pos, &trunc, "(?)");
  } else {
    npy_append(buf, buflen, &pos, &trunc, "(");
    for (int k = 0; k < ndim; k++) {
      snprintf(piece, sizeof piece, k == 0 ? "%zu" : ", %zu", shape[k]);
      npy_append(buf, buflen, &pos, &trunc, piece);
    }
    npy_append(buf, buflen, &pos, &trunc, ndim == 1 ? ",)" : ")");
  }
  if (trunc && buflen >= 4) memcpy(buf + buflen - 4, "...", 4);
}

/* ---------------------------------------------------------------------------
 * Header dict parser
 * ------------------------------------------------------------------------- */

/*
 * Reports a syntax error in the header at the cursor position, quoting a few
 * bytes of the text there so the user can find it.  Always returns -1.
 */
static int npy_lex_err(NpyLex *L, const char *what) {
  size_t at = (size_t)(L->p - L->begin);
  if (L->p >= L->end) {
    npy_msg(L->msg, L->msglen, L->name, "malformed header: %s at the end of the header", what);
  } else {
    char near[80];
    npy_sanitize(L->p, (size_t)(L->end - L->p), 16, near, sizeof near);
    npy_msg(L->msg, L->msglen, L->name, "malformed header: %s at byte %zu of the header, near \"%s\"", what, at, near);
  }
  return -1;
}

/* Skips Python whitespace between tokens. */
static void npy_lex_ws(NpyLex *L) {
  while (L->p < L->end && (*L->p == ' ' || *L->p == '\t' || *L->p == '\n' || *L->p == '\r')) L->p++;
}

/* Returns the next byte without consuming it, or -1 at the end. */
static int npy_lex_peek(const NpyLex *L) { return L->p < L->end ? *L->p : -1; }

/*
 * Parses a quoted string ('...' or "..."); *s and *n receive the raw bytes
 * between the quotes (a backslash escape is skipped over but not decoded,
 * which is enough since no valid key or descr contains one).
 */
static int npy_lex_string(NpyLex *L, const unsigned char **s, size_t *n, const char *what) {
  int q = npy_lex_peek(L);
  if (q != '\'' && q != '"') return npy_lex_err(L, what);
  const unsigned char *start = L->p + 1;
  const unsigned char *p = start;
  while (p < L->end && *p != q) {
    if (*p == '\n') break;
    if (*p == '\\') {
      if (L->end - p < 2) break;
      p += 2;
      continue;
    }
    p++;
  }
  if (p >= L->end || *p != q) return npy_lex_err(L, "unterminated string");
  *s = start;
  *n = (size_t)(p - start);
  L->p = p + 1;
  return 0;
}

/* Returns 1 if (s, n) equals the NUL-terminated word w. */
static int npy_eq(const unsigned char *s, size_t n, const char *w) {
  return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* Returns 1 if c can continue a Python identifier or number. */
static int npy_is_word(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Parses the Python literal True or False into *v. */
static int npy_lex_bool(NpyLex *L, int *v) {
  size_t left = (size_t)(L->end - L->p);
  if (left >= 4 && memcmp(L->p, "True", 4) == 0 && (left == 4 || !npy_is_word(L->p[4]))) {
    *v = 1;
    L->p += 4;
    return 0;
  }
  if (left >= 5 && memcmp(L->p, "False", 5) == 0 && (left == 5 || !npy_is_word(L->p[5]))) {
    *v = 0;
    L->p += 5;
    return 0;
  }
  return npy_lex_err(L, "'fortran_order' must be True or False");
}

/* Parses one extent: decimal digits (optional Python 2 'L' suffix) into *v. */
static int npy_lex_extent(NpyLex *L, size_t *v) {
  int c = npy_lex_peek(L);
  if (c == '-') return npy_lex_err(L, "negative extent in 'shape'");
  if (c < '0' || c > '9') return npy_lex_err(L, "expected an integer extent in 'shape'");
  size_t x = 0;
  while (L->p < L->end && *L->p >= '0' && *L->p <= '9') {
    size_t d = (size_t)(*L->p - '0');
    if (x > (SIZE_MAX - d) / 10) return npy_lex_err(L, "extent in 'shape' is too large");
    x = x * 10 + d;
    L->p++;
  }
  if (L->p < L->end && (*L->p == 'L' || *L->p == 'l')) L->p++;
  *v = x;
  return 0;
}

/*
 * Parses the shape tuple: "()", "(5,)", "(3, 4)", "(3, 4,)".  "(5)" is an
 * integer in Python, not a tuple, and is refused like NumPy refuses it.
 */
static int npy_lex_shape(NpyLex *L, NpyHeader *h) {
  if (npy_lex_peek(L) != '(') return npy_lex_err(L, "'shape' must be a tuple such as (3, 4)");
  L->p++;
  npy_lex_ws(L);
  h->ndim = 0;
  if (npy_lex_peek(L) == ')') {
    L->p++;
    return 0;
  }
  for (;;) {
    size_t v = 0;
    if (h->ndim == NPY_MAX_DIMS) {
      npy_msg(L->msg, L->msglen, L->name, "'shape' has more than %d dimensions", NPY_MAX_DIMS);
      return -1;
    }
    if (npy_lex_extent(L, &v) != 0) return -1;
    h->shape[h->ndim++] = v;
    npy_lex_ws(L);
    int c = npy_lex_peek(L);
    if (c == ',') {
      L->p++;
      npy_lex_ws(L);
      if (npy_lex_peek(L) == ')') {
        L->p++;
        return 0;
      }
    } else if (c == ')') {
      if (h->ndim == 1) return npy_lex_err(L, "'shape' (N) is not a tuple; a 1-d shape is written (N,)");
      L->p++;
      return 0;
    } else {
      return npy_lex_err(L, "expected ',' or ')' in 'shape'");
    }
  }
}

/*
 * Checks the descr string and sets itemsize; refuses everything but
 * little-endian float64/float32 with a message saying what is accepted.
 */
static int npy_check_descr(const unsigned char *s, size_t n, NpyHeader *h, const char *name, char *msg,
                           size_t msglen) {
  int little = npy_host_little();
  if (n == 3 && (s[0] == '<' || (s[0] == '=' && little)) && s[1] == 'f' && (s[2] == '8' || s[2] == '4')) {
    h->itemsize = s[2] == '8' ? 8 : 4;
    memcpy(h->descr, s, 3);
    h->descr[3] = '\0';
    return 0;
  }
  char shown[80];
  npy_sanitize(s, n, 24, shown, sizeof shown);
  if (n == 3 && (s[0] == '>' || (s[0] == '=' && !little)) && s[1] == 'f' && (s[2] == '8' || s[2] == '4')) {
    npy_msg(msg, msglen, name, "big-endian data ('%s') is not supported (save it as '<f8', e.g. with a.astype('<f8'))",
            shown);
  } else {
    npy_msg(msg, msglen, name, "unsupported dtype '%s' (" NPY_EXPECTED ")", shown);
  }
  return -1;
}

/*
 * Parses the header dict text [text, text + n) into h (descr, fortran_order,
 * shape).  Keys may come in any order; each must appear exactly once; no
 * other key is allowed (NumPy's rule too).
 */
static int npy_parse_dict(const unsigned char *text, size_t n, NpyHeader *h, const char *name, char *msg,
                          size_t msglen) {
  NpyLex L = {text, text, text + n, name, msg, msglen};
  const unsigned char *descr = NULL;
  size_t descr_len = 0;
  int have_descr = 0, have_fortran = 0, have_shape = 0;

  npy_lex_ws(&L);
  if (npy_lex_peek(&L) != '{') return npy_lex_err(&L, "expected '{' starting the header dict");
  L.p++;
  for (;;) {
    const unsigned char *key;
    size_t key_len;
    int *seen;
    npy_lex_ws(&L);
    if (npy_lex_peek(&L) == '}') {
      L.p++;
      break;
    }
    if (npy_lex_string(&L, &key, &key_len, "expected a quoted key or '}'") != 0) return -1;
    if (npy_eq(key, key_len, "descr")) {
      seen = &have_descr;
    } else if (npy_eq(key, key_len, "fortran_order")) {
      seen = &have_fortran;
    } else if (npy_eq(key, key_len, "shape")) {
      seen = &have_shape;
    } else {
      char shown[80];
      npy_sanitize(key, key_len, 24, shown, sizeof shown);
      npy_msg(msg, msglen, name, "unexpected key '%s' in header (expected 'descr', 'fortran_order', 'shape')", shown);
      return -1;
    }
    if (*seen) {
      char shown[80];
      npy_sanitize(key, key_len, 24, shown, sizeof shown);
      npy_msg(msg, msglen, name, "malformed header: key '%s' appears twice", shown);
      return -1;
    }
    *seen = 1;
    npy_lex_ws(&L);
    if (npy_lex_peek(&L) != ':') return npy_lex_err(&L, "expected ':' after a key");
    L.p++;
    npy_lex_ws(&L);
    if (seen == &have_descr) {
      if (npy_lex_peek(&L) == '[') {
        npy_msg(msg, msglen, name, "structured dtypes (a list 'descr') are not supported (" NPY_EXPECTED ")");
        return -1;
      }
      if (npy_lex_string(&L, &descr, &descr_len, "'descr' must be a quoted string such as '<f8'") != 0) return -1;
    } else if (seen == &have_fortran) {
      if (npy_lex_bool(&L, &h->fortran) != 0) return -1;
    } else {
      if (npy_lex_shape(&L, h) != 0) return -1;
    }
    npy_lex_ws(&L);
    int c = npy_lex_peek(&L);
    if (c == ',') {
      L.p++;
    } else if (c == '}') {
      L.p++;
      break;
    } else {
      return npy_lex_err(&L, "expected ',' or '}' after a value");
    }
  }
  npy_lex_ws(&L);
  if (L.p != L.end) return npy_lex_err(&L, "unexpected text after the closing '}'");

  const char *missing = !have_descr ? "descr" : !have_fortran ? "fortran_order" : !have_shape ? "shape" : NULL;
  if (missing != NULL) {
    npy_msg(msg, msglen, name, "malformed header: no '%s' key (a .npy header needs 'descr', 'fortran_order', 'shape')",
            missing);
    return -1;
  }
  return npy_check_descr(descr, descr_len, h, name, msg, msglen);
}

/*
 * Parses and validates the fixed prefix and the header of a .npy image
 * (buf must hold at least the prefix and the whole header; the data may be
 * missing).  Fills h including the checked sizes; refuses zero extents,
 * overflowing sizes and arrays whose doubles would exceed max_bytes.
 */
static int npy_parse_header(const unsigned char *buf, size_t len, const char *name, size_t max_bytes, NpyHeader *h,
                            char *msg, size_t msglen) {
  memset(h, 0, sizeof *h);
  if (len == 0) {
    npy_msg(msg, msglen, name, "empty file (not a .npy file)");
    return -1;
  }
  size_t cmp = len < NPY_MAGIC_LEN ? len : NPY_MAGIC_LEN;
  if (memcmp(buf, NPY_MAGIC, cmp) != 0) {
    npy_msg(msg, msglen, name, "not a .npy file (bad magic)");
    return -1;
  }
  if (len < NPY_MAGIC_LEN + 2) {
    npy_msg(msg, msglen, name, "truncated: %zu byte%s is too short for a .npy header", len, npy_plural(len));
    return -1;
  }
  unsigned major = buf[6], minor = buf[7];
  if (minor != 0 || major < 1 || major > 3) {
    npy_msg(msg, msglen, name, "unsupported .npy format version %u.%u (supported: 1.0, 2.0, 3.0)", major, minor);
    return -1;
  }
  size_t prefix = major == 1 ? 10 : 12;
  if (len < prefix) {
    npy_msg(msg, msglen, name, "truncated: %zu bytes is too short for a version %u.0 .npy header", len, major);
    return -1;
  }
  size_t hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
  if (major != 1) hlen |= (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
  if (hlen > NPY_MAX_HEADER) {
    npy_msg(msg, msglen, name, "header length %zu exceeds the limit of %zu bytes", hlen, NPY_MAX_HEADER);
    return -1;
  }
  if (hlen > len - prefix) {
    npy_msg(msg, msglen, name, "truncated header: header length is %zu bytes but only %zu byte%s follow%s", hlen,
            len - prefix, npy_plural(len - prefix), len - prefix == 1 ? "s" : "");
    return -1;
  }
  if (npy_parse_dict(buf + prefix, hlen, h, name, msg, msglen) != 0) return -1;
  h->data_off = prefix + hlen;

  char sh[160];
  npy_shape_str(h->ndim, h->shape, sh, sizeof sh);
  for (int k = 0; k < h->ndim; k++) {
    if (h->shape[k] == 0) {
      npy_msg(msg, msglen, name, "shape %s has a zero extent (teil extents must be >= 1)", sh);
      return -1;
    }
  }
  size_t count = 1;
  for (int k = 0; k < h->ndim; k++) {
    if (count > SIZE_MAX / h->shape[k]) {
      npy_msg(msg, msglen, name, "shape %s is too large (the element count overflows)", sh);
      return -1;
    }
    count *= h->shape[k];
  }
  if (count > SIZE_MAX / sizeof(double)) {
    npy_msg(msg, msglen, name, "shape %s is too large (the byte size overflows)", sh);
    return -1;
  }
  if (count * sizeof(double) > max_bytes) {
    npy_msg(msg, msglen, name, "array too large: shape %s needs %zu bytes as doubles, the limit is %zu", sh,
            count * sizeof(double), max_bytes);
    return -1;
  }
  h->count = count;
  h->data_bytes = count * h->itemsize; /* <= count * sizeof(double): no overflow */
  return 0;
}

/*
 * Decodes h->count elements from raw (h->data_bytes bytes) into dst in C
 * order.  For a Fortran-order file the element at index (i0, ..., in-1) sits
 * at offset sum(ik * fstride[k]) with fstride[0] = 1 and fstride[k] =
 * fstride[k-1] * shape[k-1]; we walk the C-order indices like an odometer
 * and keep that offset up to date, so the shape is kept and only the storage
 * order changes.  All offsets stay below count, so nothing overflows.
 */
static void npy_decode(const unsigned char *raw, const NpyHeader *h, double *dst) {
  double (*get)(const unsigned char *) = h->itemsize == 8 ? npy_get_f8 : npy_get_f4;
  size_t w = h->itemsize;
  if (!h->fortran || h->ndim < 2) {
    for (size_t i = 0; i < h->count; i++) dst[i] = get(raw + i * w);
    return;
  }
  size_t fstride[NPY_MAX_DIMS], idx[NPY_MAX_DIMS];
  fstride[0] = 1;
  for (int k = 1; k < h->ndim; k++) fstride[k] = fstride[k - 1] * h->shape[k - 1];
  for (int k = 0; k < h->ndim; k++) idx[k] = 0;
  size_t off = 0;
  for (size_t c = 0; c < h->count; c++) {
    dst[c] = get(raw + off * w);
    for (int k = h->ndim - 1; k >= 0; k--) {
      idx[k]++;
      off += fstride[k];
      if (idx[k] < h->shape[k]) break;
      off -= h->shape[k] * fstride[k];
      idx[k] = 0;
    }
  }
}

/* Resets *a to an empty array without freeing anything. */
static void npy_clear(NpyArray *a) {
  a->ndim = 0;
  a->count = 0;
  a->data = NULL;
  memset(a->shape, 0, sizeof a->shape);
}

/*
 * Parses a complete .npy image: header, then exactly data_bytes of data
 * (shorter is "truncated", longer is "unexpected bytes after the data"),
 * then allocates and decodes the doubles.
 */
int npy_parse(const unsigned char *buf, size_t len, const char *name, size_t max_bytes, NpyArray *out, char *msg,
              size_t msglen) {
  NpyHeader h;
  if (out == NULL || (buf == NULL && len > 0)) {
    npy_msg(msg, msglen, name, "invalid arguments to npy_parse");
    return -1;
  }
  npy_clear(out);
  if (npy_parse_header(buf, len, name, max_bytes, &h, msg, msglen) != 0) return -1;
  size_t avail = len - h.data_off;
  if (avail < h.data_bytes) {
    size_t got = avail / h.itemsize, stray = avail % h.itemsize;
    if (stray != 0)
      npy_msg(msg, msglen, name, "truncated: header says %zu element%s but the file holds %zu (and %zu stray byte%s)",
              h.count, npy_plural(h.count), got, stray, npy_plural(stray));
    else
      npy_msg(msg, msglen, name, "truncated: header says %zu element%s but the file holds %zu", h.count,
              npy_plural(h.count), got);
    return -1;
  }
  if (avail > h.data_bytes) {
    size_t extra = avail - h.data_bytes;
    npy_msg(msg, msglen, name, "%zu unexpected byte%s after the data (header says %zu element%s of '%s' = %zu bytes)",
            extra, npy_plural(extra), h.count, npy_plural(h.count), h.descr, h.data_bytes);
    return -1;
  }
  double *data = malloc(h.count * sizeof(double));
  if (data == NULL) {
    npy_msg(msg, msglen, name, "out of memory: cannot allocate %zu bytes", h.count * sizeof(double));
    return -1;
  }
  npy_decode(buf + h.data_off, &h, data);
  out->ndim = h.ndim;
  memcpy(out->shape, h.shape, sizeof h.shape);
  out->count = h.count;
  out->data = data;
  return 0;
}

/*
 * Reads the file into memory, but never more than
 * prefix + NPY_MAX_HEADER + max_bytes + 1 bytes; a valid file within the
 * limit is always shorter than that (its data is at most count * 8 <=
 * max_bytes bytes).  If the cap is reached, the header alone decides the
 * message (too large, or bytes after the data); otherwise npy_parse does all
 * the work, so files and memory images follow exactly the same rules.
 */
int npy_read(const char *path, size_t max_bytes, NpyArray *out, char *msg, size_t msglen) {
  if (out == NULL || path == NULL) {
    npy_msg(msg, msglen, path, "invalid arguments to npy_read");
    return -1;
  }
  npy_clear(out);
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    npy_msg(msg, msglen, path, "cannot open for reading: %s", strerror(errno));
    return -1;
  }
  size_t cap = 12 + NPY_MAX_HEADER + 1;
  cap = max_bytes > SIZE_MAX - cap ? SIZE_MAX : cap + max_bytes;
  size_t size = 0, len = 0;
  unsigned char *buf = NULL;
  int rc = -1;
  for (;;) {
    if (len == size) {
      if (size == cap) break;
      size_t want = size == 0 ? 65536 : (size > SIZE_MAX / 2 ? SIZE_MAX : size * 2);
      if (want > cap) want = cap;
      unsigned char *nb = realloc(buf, want);
      if (nb == NULL) {
        npy_msg(msg, msglen, path, "out of memory while reading the file (%zu bytes)", want);
        goto done;
      }
      buf = nb;
      size = want;
    }
    len += fread(buf + len, 1, size - len, f);
    if (len < size) { /* a short read means end of file or an error */
      if (ferror(f)) {
        npy_msg(msg, msglen, path, "read error: %s", strerror(errno));
        goto done;
      }
      break;
    }
  }
  if (len == cap) {
    NpyHeader h;
    if (npy_parse_header(buf, len, path, max_bytes, &h, msg, msglen) != 0) goto done;
    npy_msg(msg, msglen, path, "unexpected bytes after the data (header says %zu element%s of '%s' = %zu bytes)",
            h.count, npy_plural(h.count), h.descr, h.data_bytes);
    goto done;
  }
  rc = npy_parse(buf, len, path, max_bytes, out, msg, msglen);
done:
  free(buf);
  fclose(f);
  return rc;
}

/*
 * Writes a '<f8', C-order .npy file laid out exactly as NumPy's np.save does:
 * the header dict, spaces, and a newline, so that the data starts at a
 * multiple of 64 bytes.  Version 1.0 unless the header exceeds 65535 bytes
 * (impossible for <= 64 dimensions, but handled), then 2.0.
 */
int npy_write(const char *path, const double *data, int ndim, const size_t *shape, char *msg, size_t msglen) {
  char sh[NPY_MAX_DIMS * 24 + 8];
  char dict[sizeof sh + 128];
  unsigned char prefix[12];
  unsigned char chunk[4096];

  if (path == NULL) {
    npy_msg(msg, msglen, path, "invalid arguments to npy_write (no path)");
    return -1;
  }
  if (ndim < 0 || ndim > NPY_MAX_DIMS) {
    npy_msg(msg, msglen, path, "cannot write an array of rank %d (supported: 0..%d)", ndim, NPY_MAX_DIMS);
    return -1;
  }
  if (ndim > 0 && shape == NULL) {
    npy_msg(msg, msglen, path, "invalid arguments to npy_write (no shape for rank %d)", ndim);
    return -1;
  }
  npy_shape_str(ndim, shape, sh, sizeof sh);
  size_t count = 1;
  for (int k = 0; k < ndim; k++) {
    if (shape[k] == 0) {
      npy_msg(msg, msglen, path, "cannot write shape %s: zero extent (teil extents must be >= 1)", sh);
      return -1;
    }
    if (count > SIZE_MAX / shape[k] || count * shape[k] > SIZE_MAX / sizeof(double)) {
      npy_msg(msg, msglen, path, "cannot write shape %s: too large (the byte size overflows)", sh);
      return -1;
    }
    count *= shape[k];
  }
  if (data == NULL) {
    npy_msg(msg, msglen, path, "invalid arguments to npy_write (no data)");
    return -1;
  }

  int n = snprintf(dict, sizeof dict, "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", sh);
  if (n < 0 || (size_t)n >= sizeof dict) {
    npy_msg(msg, msglen, path, "internal error: header does not fit");
    return -1;
  }
  /* NumPy's _wrap_header: pad with 1..64 spaces then '\n' to a multiple of 64. */
  size_t plen = 10, body = (size_t)n + 1;
  size_t pad = 64 - (plen + body) % 64;
  if (body + pad > 65535) {
    plen = 12;
    pad = 64 - (plen + body) % 64;
  }
  size_t hlen = body + pad;
  memcpy(prefix, NPY_MAGIC, NPY_MAGIC_LEN);
  prefix[6] = plen == 10 ? 1 : 2;
  prefix[7] = 0;
  for (size_t i = 0; i < plen - 8; i++) prefix[8 + i] = (unsigned char)(hlen >> (8 * i));

  FILE *f = fopen(path, "wb");
  if (f == NULL) {
    npy_msg(msg, msglen, path, "cannot open for writing: %s", strerror(errno));
    return -1;
  }
  int ok = fwrite(prefix, 1, plen, f) == plen && fwrite(dict, 1, (size_t)n, f) == (size_t)n;
  for (size_t i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  if (ok) ok = fputc('\n', f) != EOF;
  for (size_t i = 0; ok && i < count;) {
    size_t m = 0;
    for (; m < sizeof chunk / 8 && i < count; m++, i++) npy_put_f8(chunk + 8 * m, data[i]);
    ok = fwrite(chunk, 1, 8 * m, f) == 8 * m;
  }
  int err = ok ? 0 : errno;
  if (fclose(f) != 0 && ok) {
    ok = 0;
    err = errno;
  }
  if (!ok) {
    /* The partial file is left alone: removing it could delete a device or
     * a pipe the caller named (e.g. /dev/stdout), and the reader refuses a
     * truncated file anyway. */
    npy_msg(msg, msglen, path, "write error: %s", err != 0 ? strerror(err) : "unknown error");
    return -1;
  }
  return 0;
}

/* Frees the data of *a and resets it to an empty array. */
void npy_free(NpyArray *a) {
  if (a == NULL) return;
  free(a->data);
  npy_clear(a);
}
