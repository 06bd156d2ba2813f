/*
 * arena.c - memory for a program's lifetime: one arena per program holds the
 * AST, the types, the strings and the diagnostics, and is freed whole (QBE's
 * freeall). Every allocation goes through the checked wrappers below.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ArenaBlock {
  ArenaBlock *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

_Noreturn void teil_unreachable_at(const char *file, int line) {
  fprintf(stderr, "teil: internal error at %s:%d\n", file, line);
  abort();
}

static _Noreturn void out_of_memory(size_t size) {
  fprintf(stderr, "teil: out of memory (allocating %zu bytes)\n", size);
  abort();
}

void *xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p)
    out_of_memory(size);
  return p;
}

void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    out_of_memory(n * size);
  return p;
}

/* Returns size zeroed bytes aligned to 16. Large requests get a block of their own. */
void *arena_alloc(Arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  ArenaBlock *b = a->head;
  if (!b || b->cap - b->used < size) {
    size_t cap = size > 65536 ? size : 65536;
    if (cap > SIZE_MAX - sizeof(ArenaBlock))
      out_of_memory(size);
    b = malloc(sizeof(ArenaBlock) + cap);
    if (!b)
      out_of_memory(size);
    b->used = 0;
    b->cap = cap;
    b->next = a->head;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
  char *d = arena_alloc(a, n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

void arena_free(Arena *a) {
  ArenaBlock *b = a->head;
  while (b) {
    ArenaBlock *next = b->next;
    free(b);
    b = next;
  }
  a->head = NULL;
}

void arena_move(Arena *to, Arena *from) {
  ArenaBlock *b = from->head;
  from->head = NULL;
  if (!b)
    return;
  if (!to->head) {
    to->head = b;
    return;
  }
  ArenaBlock *last = b;                              /* to's head stays the block it allocates from */
  while (last->next)
    last = last->next;
  last->next = to->head->next;
  to->head->next = b;
}
