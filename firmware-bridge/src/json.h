/*
 * A tiny, bounded JSON reader and writer for the flat JSON-RPC messages in PROTOCOL.md. The
 * reader validates a whole document once (depth <= JS_MAX_DEPTH, strict grammar) and then looks
 * values up by key without copying; the writer appends into a fixed buffer and records overflow
 * instead of writing past it. No allocation anywhere.
 */
#ifndef QD_JSON_H
#define QD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JS_MAX_DEPTH 4

typedef struct {
  const char *p;
  size_t n;
} js_t;

/* 0 if doc is exactly one well-formed JSON value (surrounding whitespace allowed). */
int js_validate(js_t doc);
/* The value of key in a validated object; 0 if found. Keys are compared byte for byte. */
int js_get(js_t obj, const char *key, js_t *val);
bool js_is_object(js_t v);
bool js_is_string(js_t v);
bool js_is_number(js_t v);
/* 0 and *out when v is a finite number. */
int js_number(js_t v, double *out);
int js_bool(js_t v, bool *out);
/* Whether v is the string lit, exactly (no escapes in lit). */
bool js_str_eq(js_t v, const char *lit);
/* 0 when v is an array of at most max numbers; *count gets how many. */
int js_numbers(js_t v, double *out, size_t max, size_t *count);

typedef struct {
  char *buf;
  size_t cap;
  size_t len;
  bool overflow;
} jw_t;

void jw_init(jw_t *w, char *buf, size_t cap);
void jw_obj(jw_t *w);
void jw_obj_end(jw_t *w);
void jw_arr(jw_t *w);
void jw_arr_end(jw_t *w);
void jw_key(jw_t *w, const char *key);
void jw_str(jw_t *w, const char *s);
/* A raw, already-valid JSON value (e.g. an echoed request id). */
void jw_raw(jw_t *w, const char *p, size_t n);
void jw_uint(jw_t *w, uint32_t v);
void jw_int(jw_t *w, int32_t v);
void jw_bool(jw_t *w, bool v);
/* Fixed point with up to 4 decimals, trailing zeros trimmed; non-finite values are written as 0. */
void jw_num(jw_t *w, double v);

#endif
