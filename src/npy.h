/*
 * npy.h - reading and writing NumPy .npy files for teil.
 *
 * teil exchanges tensor values with the outside world as NumPy .npy files.
 * This module reads format versions 1.0, 2.0 and 3.0 holding little-endian
 * float64 ('<f8') or float32 ('<f4', widened to double) data in C or Fortran
 * order, and writes version 1.0 files (2.0 only if the header would not fit)
 * holding '<f8' data in C order.  Every array handed out is a malloc'd block
 * of doubles in C (row-major) order; a Fortran-order file is converted on
 * reading, so the caller always sees the same logical array NumPy would load.
 *
 * The library never prints and never exits: every function that can fail
 * returns 0 on success or -1 on failure and then writes one line (no trailing
 * newline) into the caller's message buffer, prefixed with the file name,
 * e.g. "x.npy: big-endian data ('>f8') is not supported".  The message buffer
 * may be NULL (or msglen 0) when the caller does not want the text.
 *
 * Policies (see npy.c for details): extents must be >= 1 (teil has no empty
 * tensors); the data must be exactly as long as the header says (a short file
 * and trailing bytes are both refused); every size computation is checked for
 * overflow; the header may be at most NPY_MAX_HEADER bytes.
 */
#ifndef TEIL_NPY_H
#define TEIL_NPY_H

#include <stddef.h>

/* Largest rank accepted or written (NumPy's own limit is 64 as well). */
#define NPY_MAX_DIMS 64

/* Largest header (the dict text after the fixed prefix) accepted, in bytes.
 * A 64-dimensional '<f8' header needs well under 2 KiB. */
#define NPY_MAX_HEADER ((size_t)1 << 20)

typedef struct NpyArray {
  int ndim;                    /* 0 for a scalar (shape ()) */
  size_t shape[NPY_MAX_DIMS];
  size_t count;                /* product of shape; 1 for a scalar */
  double *data;                /* count doubles, C (row-major) order, malloc'd; owner frees with npy_free */
} NpyArray;

/*
 * Parses a complete .npy image in memory (buf, len bytes).  Returns 0 on
 * success and fills *out, or -1 on error with msg filled and *out left empty
 * (data NULL, ndim 0, count 0), so npy_free(out) is always safe.
 * 'name' is used in messages.  max_bytes bounds the memory the result needs,
 * count * sizeof(double); a larger array is refused before anything is
 * allocated.  Pass SIZE_MAX for no limit.
 */
int npy_parse(const unsigned char *buf, size_t len, const char *name, size_t max_bytes, NpyArray *out, char *msg,
              size_t msglen);

/*
 * Reads and parses the file at 'path' (used as the name in messages), with
 * the same rules and max_bytes meaning as npy_parse.  The file is read into
 * memory first; at most NPY_MAX_HEADER + max_bytes + a few bytes are read
 * before a file is declared too large.
 */
int npy_read(const char *path, size_t max_bytes, NpyArray *out, char *msg, size_t msglen);

/*
 * Writes version 1.0 (or 2.0 if the header needs it), '<f8', C order.
 * ndim is 0..NPY_MAX_DIMS; shape may be NULL when ndim is 0; data holds the
 * product of the shape doubles in C order.  Extents must be >= 1.  Arguments
 * are checked before the file is opened; after a write error a partial file
 * may remain (the reader refuses it as truncated).
 */
int npy_write(const char *path, const double *data, int ndim, const size_t *shape, char *msg, size_t msglen);

/* Frees a->data and resets *a to an empty array; safe on NULL and twice. */
void npy_free(NpyArray *a);

/*
 * Formats a shape as NumPy does: "()", "(3,)", "(3, 4)".  The result is
 * always NUL-terminated when buflen > 0; if it does not fit it is cut short
 * and ends in "...".
 */
void npy_shape_str(int ndim, const size_t *shape, char *buf, size_t buflen);

#endif /* TEIL_NPY_H */
