/*
 * lex.c - the lexer for both languages (spec/lexical.md). It consumes source
 * text and produces one token at a time. The two languages share everything
 * but comments and the meaning of '#':
 *   TeIL:  '#' starts a comment to the end of the line (R-LEX-2);
 *   model: '#' is the outer product and '//' starts a comment.
 * Newlines are not significant (R-LEX-1); each token records whether it is the
 * first on its line, which the parsers use to recover after a syntax error.
 */
#include <ctype.h>
#include <string.h>

#include "internal.h"

const char *const ex_names[EX_COUNT] = {
#define X(e, name, kids, ints, sem) name,
#include "ops.def"
};
const int ex_kids[EX_COUNT] = {
#define X(e, name, kids, ints, sem) kids,
#include "ops.def"
};
const int ex_ints[EX_COUNT] = {
#define X(e, name, kids, ints, sem) ints,
#include "ops.def"
};

void lex_init(Lexer *lx, const char *src, size_t len, TeilLang lang, Diags *diags) {
  lx->src = lx->p = lx->line_start = src;
  lx->end = src + len;
  lx->diags = diags;
  lx->lang = lang;
  lx->line = 1;
  lx->bol = true;
}

const char *lex_kind_name(TokenKind k) {
  switch (k) {
  case TK_EOF: return "end of file";
  case TK_IDENT: return "a name";
  case TK_INT: return "an integer";
  case TK_ALLOC: return "'alloc'";
  case TK_VAR: return "'var'";
  case TK_INPUT: return "'input'";
  case TK_OUTPUT: return "'output'";
  case TK_OP: return "an operator";
  case TK_LBRACK: return "'['";
  case TK_RBRACK: return "']'";
  case TK_LPAREN: return "'('";
  case TK_RPAREN: return "')'";
  case TK_COMMA: return "','";
  case TK_COLON: return "':'";
  case TK_ASSIGN: return "'='";
  case TK_PLUS: return "'+'";
  case TK_MINUS: return "'-'";
  case TK_STAR: return "'*'";
  case TK_SLASH: return "'/'";
  case TK_HASH: return "'#'";
  case TK_DOT: return "'.'";
  case TK_CARET: return "'^'";
  case TK_BAD: return "an invalid character";
  }
  teil_unreachable();
}

/* Skips whitespace and comments, counting lines. */
static void skip_space(Lexer *lx) {
  while (lx->p < lx->end) {
    char c = *lx->p;
    if (c == '\n') {
      lx->p++;
      lx->line++;
      lx->line_start = lx->p;
      lx->bol = true;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->p++;
    } else if ((c == '#' && lx->lang == TEIL_LANG_TEIL) ||
               (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/' && lx->lang == TEIL_LANG_MODEL)) {
      while (lx->p < lx->end && *lx->p != '\n')
        lx->p++;
    } else {
      return;
    }
  }
}

/* R-LEX-4: keywords are reserved; TeIL's operators only in TeIL. */
static void keyword(Lexer *lx, Token *t) {
  static const struct { const char *s; TokenKind k; } common[] = {
      {"input", TK_INPUT}, {"output", TK_OUTPUT}};
  for (size_t i = 0; i < sizeof common / sizeof *common; i++)
    if ((int)strlen(common[i].s) == t->len && !memcmp(common[i].s, t->start, (size_t)t->len))
      t->kind = common[i].k;
  if (lx->lang == TEIL_LANG_MODEL) {
    if (t->len == 3 && !memcmp(t->start, "var", 3))
      t->kind = TK_VAR;
    return;
  }
  if (t->len == 5 && !memcmp(t->start, "alloc", 5))
    t->kind = TK_ALLOC;
  for (int k = 1; k < EX_COUNT; k++) {
    const char *n = ex_names[k];
    if (k != EX_RED && (int)strlen(n) == t->len && !memcmp(n, t->start, (size_t)t->len)) {
      t->kind = TK_OP;
      t->op = (ExprKind)k;
    }
  }
}

/* Scans one token; bytes no rule accepts are reported and skipped (R-LEX-1(4)). */
static Token scan(Lexer *lx);

Token lex_next(Lexer *lx) {
  for (;;) {
    Token t = scan(lx);
    if (t.kind != TK_BAD)
      return t;
    unsigned char c = (unsigned char)*t.start;
    if (c >= 0x21 && c < 0x7f)
      diag_error(lx->diags, t.loc, t.len, "syntax error: unexpected character '%c'", c);
    else
      diag_error(lx->diags, t.loc, t.len, "syntax error: unexpected character '\\x%02X'", c);
    diag_tag(lx->diags, "syntax", "R-LEX-1");
  }
}

static Token scan(Lexer *lx) {
  skip_space(lx);
  Token t = {0};
  t.start = lx->p;
  t.loc.line = lx->line;
  t.loc.col = (int)(lx->p - lx->line_start) + 1;
  t.bol = lx->bol;
  lx->bol = false;
  const char *p = lx->p;
  char c = p < lx->end ? *p : '\0';

  if (p >= lx->end) {
    t.kind = TK_EOF;
    return t;
  }

  /* R-LEX-3 identifiers; TeIL's red+ (also red_+) is one token. */
  if (isalpha((unsigned char)c) || c == '_') {
    while (p < lx->end && (isalnum((unsigned char)*p) || *p == '_'))
      p++;
    t.kind = TK_IDENT;
    t.len = (int)(p - lx->p);
    if (lx->lang == TEIL_LANG_TEIL && p < lx->end && *p == '+' &&
        ((t.len == 3 && !memcmp(t.start, "red", 3)) || (t.len == 4 && !memcmp(t.start, "red_", 4)))) {
      p++;
      t.len++;
      t.kind = TK_OP;
      t.op = EX_RED;
    } else {
      keyword(lx, &t);
    }
    lx->p = p;
    return t;
  }

  /* R-LEX-5 decimal integer literals; val = -1 flags a literal above the limit. */
  if (isdigit((unsigned char)c)) {
    int64_t v = 0;
    while (p < lx->end && isdigit((unsigned char)*p)) {
      int d = *p++ - '0';
      if (v >= 0) {
        if (v > (TEIL_MAX_LITERAL - d) / 10)
          v = -1;
        else
          v = v * 10 + d;
      }
    }
    t.kind = TK_INT;
    t.val = v;
    t.len = (int)(p - lx->p);
    lx->p = p;
    if (v < 0) {
      diag_error(lx->diags, t.loc, t.len, "integer literal too large");
      diag_note(lx->diags, "the largest integer literal is 2^62 = 4611686018427387904");
      diag_tag(lx->diags, "literal-too-large", "R-LEX-5");
    }
    return t;
  }

  /* R-LEX-6 punctuation; + - * / . ^ belong to the model language only. */
  t.len = 1;
  if (lx->lang == TEIL_LANG_TEIL && strchr("+-*/.^", c)) {
    t.kind = TK_BAD;
    lx->p++;
    return t;
  }
  switch (c) {
  case '[': t.kind = TK_LBRACK; break;
  case ']': t.kind = TK_RBRACK; break;
  case '(': t.kind = TK_LPAREN; break;
  case ')': t.kind = TK_RPAREN; break;
  case ',': t.kind = TK_COMMA; break;
  case ':': t.kind = TK_COLON; break;
  case '=': t.kind = TK_ASSIGN; break;
  case '+': t.kind = TK_PLUS; break;
  case '-': t.kind = TK_MINUS; break;
  case '*': t.kind = TK_STAR; break;
  case '/': t.kind = TK_SLASH; break;
  case '#': t.kind = TK_HASH; break;
  case '.': t.kind = TK_DOT; break;
  case '^': t.kind = TK_CARET; break;
  default:
    t.kind = TK_BAD;                  /* one byte, reported as '\\xHH' if not printable */
    break;
  }
  lx->p += t.len;
  return t;
}
