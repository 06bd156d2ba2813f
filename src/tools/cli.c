/*
 * cli.c - helpers for the command-line tools (see cli.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

char *cli_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "cannot read '%s': it is a directory", path);
    fclose(f);
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      snprintf(err, errlen, "cannot read '%s': out of memory", path);
      fclose(f);
      return NULL;
    }
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap)
      break;
    if (cap >= max) {
      snprintf(err, errlen, "cannot read '%s': larger than %zu bytes", path, max);
      free(buf);
      fclose(f);
      return NULL;
    }
    char *b2 = realloc(buf, cap * 2);
    if (!b2)
      free(buf);
    buf = b2;
    cap *= 2;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

int cli_number(const char *s, long long lo, long long hi, long long *out) {
  if (!s || !*s)
    return -1;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}
