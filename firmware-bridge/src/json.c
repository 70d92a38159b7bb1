/*
 * Reader: a recursive-descent validator whose recursion is capped at JS_MAX_DEPTH, so a hostile
 * frame cannot exhaust the stack. Writer: appends with a bounds check on every byte.
 */
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static size_t ws(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
  return i;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int skip_string(const char *s, size_t n, size_t *i) {
  size_t k = *i + 1;
  while (k < n) {
    unsigned char c = (unsigned char)s[k];
    if (c == '"') {
      *i = k + 1;
      return 0;
    }
    if (c < 0x20) return -1;
    if (c == '\\') {
      if (++k >= n) return -1;
      c = (unsigned char)s[k];
      if (c == 'u') {
        for (int h = 0; h < 4; h++) {
          if (++k >= n || !is_hex(s[k])) return -1;
        }
      } else if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' &&
                 c != 'r' && c != 't') {
        return -1;
      }
    }
    k++;
  }
  return -1;
}

static int skip_digits(const char *s, size_t n, size_t *i) {
  size_t start = *i;
  while (*i < n && is_digit(s[*i])) (*i)++;
  return *i > start ? 0 : -1;
}

static int skip_number(const char *s, size_t n, size_t *i) {
  if (*i < n && s[*i] == '-') (*i)++;
  if (*i < n && s[*i] == '0') {
    (*i)++;
  } else if (skip_digits(s, n, i) != 0) {
    return -1;
  }
  if (*i < n && s[*i] == '.') {
    (*i)++;
    if (skip_digits(s, n, i) != 0) return -1;
  }
  if (*i < n && (s[*i] == 'e' || s[*i] == 'E')) {
    (*i)++;
    if (*i < n && (s[*i] == '+' || s[*i] == '-')) (*i)++;
    if (skip_digits(s, n, i) != 0) return -1;
  }
  return 0;
}

static int skip_literal(const char *s, size_t n, size_t *i, const char *lit) {
  size_t len = strlen(lit);
  if (n - *i < len || memcmp(s + *i, lit, len) != 0) return -1;
  *i += len;
  return 0;
}

static int skip_value(const char *s, size_t n, size_t *i, int depth);

/* Objects and arrays share one loop: members are `"key": value` or just `value`. */
static int skip_container(const char *s, size_t n, size_t *i, int depth, char close) {
  if (depth >= JS_MAX_DEPTH) return -1;
  *i = ws(s, n, *i + 1);
  if (*i < n && s[*i] == close) {
    (*i)++;
    return 0;
  }
  for (;;) {
    if (close == '}') {
      *i = ws(s, n, *i);
      if (*i >= n || s[*i] != '"' || skip_string(s, n, i) != 0) return -1;
      *i = ws(s, n, *i);
      if (*i >= n || s[*i] != ':') return -1;
      (*i)++;
    }
    if (skip_value(s, n, i, depth + 1) != 0) return -1;
    *i = ws(s, n, *i);
    if (*i >= n) return -1;
    if (s[*i] == ',') {
      (*i)++;
      continue;
    }
    if (s[*i] == close) {
      (*i)++;
      return 0;
    }
    return -1;
  }
}

static int skip_value(const char *s, size_t n, size_t *i, int depth) {
  *i = ws(s, n, *i);
  if (*i >= n) return -1;
  switch (s[*i]) {
    case '{': return skip_container(s, n, i, depth, '}');
    case '[': return skip_container(s, n, i, depth, ']');
    case '"': return skip_string(s, n, i);
    case 't': return skip_literal(s, n, i, "true");
    case 'f': return skip_literal(s, n, i, "false");
    case 'n': return skip_literal(s, n, i, "null");
    default: return skip_number(s, n, i);
  }
}

int js_validate(js_t doc) {
  size_t i = 0;
  if (skip_value(doc.p, doc.n, &i, 0) != 0) return -1;
  return ws(doc.p, doc.n, i) == doc.n ? 0 : -1;
}

bool js_is_object(js_t v) { return v.n >= 2 && v.p[0] == '{'; }
bool js_is_string(js_t v) { return v.n >= 2 && v.p[0] == '"'; }
bool js_is_number(js_t v) { return v.n >= 1 && (v.p[0] == '-' || is_digit(v.p[0])); }

int js_get(js_t obj, const char *key, js_t *val) {
  const char *s = obj.p;
  size_t n = obj.n;
  size_t klen = strlen(key);
  size_t i = ws(s, n, 0);
  if (i >= n || s[i] != '{') return -1;
  i = ws(s, n, i + 1);
  while (i < n && s[i] == '"') {
    size_t kstart = i;
    if (skip_string(s, n, &i) != 0) return -1;
    bool match = (i - kstart - 2u) == klen && memcmp(s + kstart + 1, key, klen) == 0;
    i = ws(s, n, i);
    if (i >= n || s[i] != ':') return -1;
    i = ws(s, n, i + 1);
    size_t vstart = i;
    if (skip_value(s, n, &i, 1) != 0) return -1;
    if (match) {
      val->p = s + vstart;
      val->n = i - vstart;
      return 0;
    }
    i = ws(s, n, i);
    if (i < n && s[i] == ',') i = ws(s, n, i + 1);
  }
  return -1;
}

int js_number(js_t v, double *out) {
  char buf[40];
  size_t i = 0;
  if (!js_is_number(v) || v.n >= sizeof buf) return -1;
  if (skip_number(v.p, v.n, &i) != 0 || i != v.n) return -1;
  memcpy(buf, v.p, v.n);
  buf[v.n] = '\0';
  double d = strtod(buf, NULL);
  if (!isfinite(d)) return -1;
  *out = d;
  return 0;
}

int js_bool(js_t v, bool *out) {
  if (v.n == 4 && memcmp(v.p, "true", 4) == 0) {
    *out = true;
    return 0;
  }
  if (v.n == 5 && memcmp(v.p, "false", 5) == 0) {
    *out = false;
    return 0;
  }
  return -1;
}

bool js_str_eq(js_t v, const char *lit) {
  size_t len = strlen(lit);
  return v.n == len + 2u && v.p[0] == '"' && memcmp(v.p + 1, lit, len) == 0 && v.p[len + 1] == '"';
}

int js_numbers(js_t v, double *out, size_t max, size_t *count) {
  const char *s = v.p;
  size_t n = v.n;
  size_t i = 0;
  size_t c = 0;
  if (n < 2 || s[0] != '[') return -1;
  i = ws(s, n, 1);
  if (i < n && s[i] == ']') {
    *count = 0;
    return 0;
  }
  while (i < n) {
    size_t start = i;
    if (skip_number(s, n, &i) != 0 || c >= max) return -1;
    js_t item = {s + start, i - start};
    if (js_number(item, &out[c]) != 0) return -1;
    c++;
    i = ws(s, n, i);
    if (i < n && s[i] == ',') {
      i = ws(s, n, i + 1);
      continue;
    }
    if (i < n && s[i] == ']') {
      *count = c;
      return 0;
    }
    return -1;
  }
  return -1;
}

void jw_init(jw_t *w, char *buf, size_t cap) {
  w->buf = buf;
  w->cap = cap;
  w->len = 0;
  w->overflow = false;
}

static void put(jw_t *w, char c) {
  if (w->len < w->cap) {
    w->buf[w->len++] = c;
  } else {
    w->overflow = true;
  }
}

static void puts_n(jw_t *w, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) put(w, s[i]);
}

/* A comma goes before a value or key unless it opens a container or follows a key. */
static void sep(jw_t *w) {
  if (w->len == 0 || w->len > w->cap) return;
  char last = w->buf[w->len - 1];
  if (last != '{' && last != '[' && last != ':') put(w, ',');
}

void jw_obj(jw_t *w) { sep(w); put(w, '{'); }
void jw_obj_end(jw_t *w) { put(w, '}'); }
void jw_arr(jw_t *w) { sep(w); put(w, '['); }
void jw_arr_end(jw_t *w) { put(w, ']'); }

void jw_key(jw_t *w, const char *key) {
  jw_str(w, key);
  put(w, ':');
}

void jw_str(jw_t *w, const char *s) {
  static const char hex[] = "0123456789abcdef";
  sep(w);
  put(w, '"');
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      put(w, '\\');
      put(w, (char)c);
    } else if (c < 0x20) {
      puts_n(w, "\\u00", 4);
      put(w, hex[c >> 4]);
      put(w, hex[c & 15u]);
    } else {
      put(w, (char)c);
    }
  }
  put(w, '"');
}

void jw_raw(jw_t *w, const char *p, size_t n) {
  sep(w);
  puts_n(w, p, n);
}

static void put_u64(jw_t *w, uint64_t v) {
  char digits[20];
  int k = 0;
  do {
    digits[k++] = (char)('0' + (int)(v % 10u));
    v /= 10u;
  } while (v != 0 && k < 20);
  while (k > 0) put(w, digits[--k]);
}

void jw_uint(jw_t *w, uint32_t v) {
  sep(w);
  put_u64(w, v);
}

void jw_int(jw_t *w, int32_t v) {
  sep(w);
  if (v < 0) put(w, '-');
  put_u64(w, v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v);
}

void jw_bool(jw_t *w, bool v) {
  sep(w);
  if (v) {
    puts_n(w, "true", 4);
  } else {
    puts_n(w, "false", 5);
  }
}

void jw_num(jw_t *w, double v) {
  sep(w);
  if (!isfinite(v)) v = 0.0;
  if (v > 1e9) v = 1e9;
  if (v < -1e9) v = -1e9;
  uint64_t scaled = (uint64_t)(fabs(v) * 10000.0 + 0.5);
  if (v < 0 && scaled != 0) put(w, '-');
  put_u64(w, scaled / 10000u);
  uint32_t frac = (uint32_t)(scaled % 10000u);
  if (frac == 0) return;
  char d[4];
  for (int k = 3; k >= 0; k--) {
    d[k] = (char)('0' + (int)(frac % 10u));
    frac /= 10u;
  }
  int last = 3;
  while (last > 0 && d[last] == '0') last--;
  put(w, '.');
  puts_n(w, d, (size_t)last + 1u);
}
