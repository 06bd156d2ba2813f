/*
 * internal.h - the one internal header of libteil, in sections per source file.
 *
 * Data flow:  source text --lex.c--> tokens --parse_teil.c / parse_model.c--> Program
 * (the typed IR both languages share) --type.c--> types filled in, diagnostics
 * --analyze.c--> warnings --store.c/interp.c--> values.
 *
 * Rule numbers (R-LEX-n, R-GR-n, R-TY-n, R-EV-n, R-PAD-n, R-AN-n) refer to spec/.
 */
#ifndef TEIL_INTERNAL_H
#define TEIL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "teil.h"

/* The largest integer literal, and the largest element count of any type:
 * with at most 2^59 elements, byte counts (8 per element, plus a flag byte)
 * stay below 2^63 (R-LEX-5, R-TY-17). */
#define TEIL_MAX_LITERAL  ((int64_t)1 << 62)
#define TEIL_MAX_ELEMS    ((uint64_t)1 << 59)

/* The deepest expression tree and the deepest parenthesis nesting accepted, so
 * that the recursive parser, checker and evaluator stay within the C stack
 * (R-GR-3: "expression nested too deeply"). */
#define TEIL_MAX_DEPTH    1000

#define teil_unreachable() teil_unreachable_at(__FILE__, __LINE__)
_Noreturn void teil_unreachable_at(const char *file, int line);

/* ---------------------------------------------------------------- arena.c */

/* One arena per program: AST, types, strings, diagnostics. Freed whole. */
typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
  ArenaBlock *head;           /* newest block first */
} Arena;

void *arena_alloc(Arena *a, size_t size);            /* zeroed; aborts on OOM */
char *arena_strndup(Arena *a, const char *s, size_t n);
void arena_free(Arena *a);
void arena_move(Arena *to, Arena *from);              /* to takes from's blocks; from is left empty */
void *xmalloc(size_t size);                          /* aborts on OOM */
void *xcalloc(size_t n, size_t size);

/* ----------------------------------------------------------------- diag.c */

typedef struct Loc {
  int line;                   /* 1-based; 0 = no location */
  int col;                    /* 1-based byte column */
} Loc;

typedef enum { SEV_ERROR, SEV_WARNING } Severity;

typedef struct Diagnostic {
  Severity sev;
  Loc loc;
  int len;                    /* length of the offending token, for the caret */
  char *msg;                  /* one line */
  char *note;                 /* shapes in words, or NULL */
  const char *category;       /* R-AN-5 category, e.g. "type-mismatch" */
  const char *rule;           /* the spec rule violated, e.g. "R-TY-13" */
  size_t seq;                 /* order of detection, for a stable sort */
  struct Diagnostic *next;
} Diagnostic;

typedef struct Diags Diags;
struct Diags {
  Arena *arena;
  const char *file;
  const char *src;            /* the whole source text, NUL-terminated */
  Diagnostic *first, *last;
  int nerrors, nwarnings;
};

void diag_error(Diags *d, Loc loc, int len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_warning(Diags *d, Loc loc, int len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_note(Diags *d, const char *fmt, ...)      /* attaches to the last one */
    __attribute__((format(printf, 2, 3)));
void diag_tag(Diags *d, const char *category, const char *rule);  /* tags the last one */
void diag_sort(Diags *d);
void diag_print(const Diags *d, FILE *out, bool color);
void diag_print_json(const Diags *d, FILE *out);

/* A growable string, used by the printers. */
typedef struct Buf {
  char *s;
  size_t len, cap;
} Buf;

void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(Buf *b);

/* ------------------------------------------------------------------ lex.c */

typedef enum {
  TK_EOF, TK_IDENT, TK_INT,
  /* keywords (R-LEX-4) */
  TK_ALLOC, TK_VAR, TK_INPUT, TK_OUTPUT,
  TK_OP,                      /* a TeIL operator keyword; Token.op says which */
  /* punctuation (R-LEX-6) */
  TK_LBRACK, TK_RBRACK, TK_LPAREN, TK_RPAREN, TK_COMMA, TK_COLON, TK_ASSIGN,
  TK_PLUS, TK_MINUS, TK_STAR, TK_SLASH, TK_HASH, TK_DOT, TK_CARET,
  TK_BAD                      /* never returned: lex_next reports and skips such bytes */
} TokenKind;

typedef enum ExprKind {
#define X(e, name, kids, ints, sem) EX_##e,
#include "ops.def"
  EX_COUNT
} ExprKind;

typedef struct Token {
  TokenKind kind;
  Loc loc;
  const char *start;          /* points into the source */
  int len;
  bool bol;                   /* first token on its line */
  ExprKind op;                /* TK_OP */
  int64_t val;                /* TK_INT; -1 if the literal is too large (already reported) */
} Token;

typedef struct Lexer {
  const char *src, *p, *end;  /* the text is [src, end); it may contain NUL bytes */
  Diags *diags;               /* where lexical errors go */
  TeilLang lang;
  int line;
  const char *line_start;
  bool bol;
} Lexer;

void lex_init(Lexer *lx, const char *src, size_t len, TeilLang lang, Diags *diags);
Token lex_next(Lexer *lx);
const char *lex_kind_name(TokenKind k);
extern const char *const ex_names[EX_COUNT];
extern const int ex_kids[EX_COUNT];
extern const int ex_ints[EX_COUNT];

/* ------------------------------------------------------- the IR (type.c) */

/* A type is a list of extents, each >= 1; rank 0 is a scalar (R-TY-1). */
typedef struct Type {
  int rank;                   /* -1: ill-typed (the error is already reported) */
  int64_t *dims;              /* rank extents, arena-allocated */
} Type;

enum { Q_INPUT = 1, Q_OUTPUT = 2 };

typedef struct Tensor {
  const char *name;
  Loc loc;
  Type ty;
  unsigned qual;              /* Q_INPUT | Q_OUTPUT, after the no-qualifier default */
  bool declared_qual;         /* some qualifier was written */
} Tensor;

typedef struct Expr Expr;
struct Expr {
  ExprKind kind;
  Loc loc;                    /* operator keyword / symbol, or the name (EX_VAR) */
  int len;                    /* token length, for the caret */
  Type ty;                    /* filled by ty_check */
  Expr *a, *b;                /* operands: a for unary ops, a and b for binary */
  int64_t i, k;               /* integer arguments (ints = 1: i; ints = 2: i, k) */
  Loc iloc, kloc;             /* where the integer arguments stand */
  int tensor;                 /* EX_VAR: index in Program.tensors, -1 if undeclared */
  const char *name;           /* EX_VAR */
  bool scalar_op;             /* EX_MUL: T-SMul (scalar left); EX_DIV: T-SDiv (scalar right) */
  bool parens;                /* written in parentheses (R-TY-3) */
  bool bad_literal;           /* an integer argument was too large (already reported) */
  int id;                     /* preorder number within its statement */
  int depth;                  /* height of the tree below and including this node */
};

typedef struct Stmt {
  int target;                 /* index in Program.tensors, -1 if undeclared */
  const char *name;
  Loc loc;                    /* of the target name */
  int len;
  Expr *rhs;
  bool ok;                    /* OK-Stmt holds */
  int nth;                    /* 1 for the target's first assignment, 2 for its second, ... */
} Stmt;

typedef struct Program {
  Arena arena;
  Diags diags;
  TeilLang lang;
  char *src;                  /* owned copy of the source text, NUL-terminated */
  size_t srclen;              /* its length; the text may contain NUL bytes (R-LEX-1) */
  Tensor *tensors;
  int ntensors, captensors;
  Stmt *stmts;
  int nstmts, capstmts;
  bool any_qualifier;
  bool parsed, checked;
} Program;

struct TeilProgram {
  Program p;
};

Tensor *prog_add_tensor(Program *p);
Stmt *prog_add_stmt(Program *p);
int prog_find(const Program *p, const char *name);
Expr *expr_new(Program *p, ExprKind kind, Loc loc, int len);

/* parse.c: programs, declarations and statements, shared by both languages
 * (R-GR-1, R-GR-2, R-GR-4, R-GR-7); syntax errors go to p->diags. */
typedef struct Parser {
  Program *p;
  Lexer lx;
  Token tok;                  /* current token */
  Token peek;                 /* the one after it */
  bool failed;                /* a syntax error in the current declaration or statement */
  int nest;                   /* current parenthesis / operator nesting of the parser */
} Parser;

void parse_program(Program *p);
void ps_next(Parser *ps);
bool ps_expect(Parser *ps, TokenKind k, const char *what);
void ps_error_here(Parser *ps, const char *what);
bool ps_int(Parser *ps, int64_t *val, Loc *loc, const char *what);
bool ps_start_of_stmt(const Parser *ps);
void ps_missing_operand(Parser *ps);
bool ps_deep(Parser *ps, Expr *e);
Expr *ps_atom(Parser *ps, Expr *(*expr)(Parser *), const char *close);
/* parse_teil.c, parse_model.c: one expression in each language's syntax. */
Expr *parse_teil_expr(Parser *ps);
Expr *parse_model_expr(Parser *ps);

/* type.c */
void ty_check(Program *p);                          /* R-TY-*: fills types, reports errors */
bool ty_equal(Type a, Type b);
uint64_t ty_count(Type t);                          /* element count; 1 for a scalar */
void ty_str(Type t, Buf *b);                        /* "[3, 4]" */
const char *ty_cstr(Arena *a, Type t);

/* analyze.c: R-AN-2, R-AN-3 */
void an_run(Program *p);

/* print.c */
void pr_expr(const Program *p, const Expr *e, Buf *b);          /* as TeIL text */
void pr_program(const Program *p, Buf *b);                      /* as TeIL text */
void pr_types(const Program *p, FILE *out, bool verbose);

/* ------------------------------------------------------------- store.c */

/* One tensor in the store. Elements are laid out row-major over the padded
 * extents; undef[o] != 0 marks • at offset o (R-EV-1). */
typedef struct Slot {
  int rank;
  const int64_t *dims;        /* declared extents */
  int64_t *pdims;             /* padded extents (R-PAD-1); equal to dims when pad = 1 */
  int64_t *stride;            /* row-major strides over pdims */
  size_t count;               /* product of pdims */
  double *v;
  unsigned char *undef;
} Slot;

struct TeilStore {
  const Program *p;
  int pad;                    /* vector length M; 1 = no padding */
  int n;
  Slot *slot;
};

int64_t st_round(int64_t d, int pad);                /* R-PAD-1: ceil(d/M)*M */

/* Calls f(user, off, real_index_flat) for every element of slot s in row-major
 * order of the declared (unpadded) type: off is the padded offset. */
void st_each_real(const Slot *s, void (*f)(void *user, size_t off, size_t flat), void *user);

#endif
