/*
 * COBS + CRC-32 framing. Everything is bounded by the buffers in frame_decoder_t; no byte
 * sequence can make the decoder read or write outside them.
 */
#include "frame.h"

#include <string.h>

#include "crc32.h"

enum { COBS_OK = 0, COBS_MALFORMED = -1, COBS_TOO_LONG = -2 };

static int cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *out_len) {
  size_t i = 0;
  size_t o = 0;
  while (i < n) {
    uint8_t code = in[i++];
    if (code == 0) return COBS_MALFORMED;
    size_t run = (size_t)code - 1u;
    if (run > n - i) return COBS_MALFORMED;
    if (run > cap - o) return COBS_TOO_LONG;
    memcpy(out + o, in + i, run);
    o += run;
    i += run;
    if (code != 0xFFu && i < n) {
      if (o >= cap) return COBS_TOO_LONG;
      out[o++] = 0;
    }
  }
  *out_len = o;
  return COBS_OK;
}

/* Returns the encoded length, or 0 if cap is too small. */
static size_t cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
  if (cap == 0) return 0;
  size_t code_at = 0;
  size_t o = 1;
  uint8_t code = 1;
  for (size_t i = 0; i < n; i++) {
    if (in[i] != 0) {
      if (o >= cap) return 0;
      out[o++] = in[i];
      code++;
    }
    if (in[i] == 0 || code == 0xFFu) {
      out[code_at] = code;
      if (o >= cap) return 0;
      code_at = o++;
      code = 1;
    }
  }
  out[code_at] = code;
  return o;
}

void frame_decoder_init(frame_decoder_t *d) { memset(d, 0, sizeof *d); }

size_t frame_decoder_push(frame_decoder_t *d, uint8_t byte, const uint8_t **payload) {
  if (byte != 0) {
    if (d->discarding) return 0;
    if (d->len >= FRAME_MAX_ENCODED) {
      d->discarding = true;
      d->len = 0;
      d->count.overlong++;
      return 0;
    }
    d->enc[d->len++] = byte;
    return 0;
  }
  if (d->discarding) {
    d->discarding = false;
    return 0;
  }
  if (d->len == 0) return 0; /* idle delimiters resynchronise; they are not frames */
  size_t raw_len = 0;
  int rc = cobs_decode(d->enc, d->len, d->raw, sizeof d->raw, &raw_len);
  d->len = 0;
  if (rc == COBS_TOO_LONG) {
    d->count.overlong++;
    return 0;
  }
  if (rc != COBS_OK) {
    d->count.malformed++;
    return 0;
  }
  if (raw_len < FRAME_CRC_LEN + 1u) {
    d->count.runt++;
    return 0;
  }
  size_t plen = raw_len - FRAME_CRC_LEN;
  const uint8_t *c = d->raw + plen;
  uint32_t want = (uint32_t)c[0] | ((uint32_t)c[1] << 8) | ((uint32_t)c[2] << 16) | ((uint32_t)c[3] << 24);
  if (crc32_ieee(d->raw, plen) != want) {
    d->count.crc++;
    return 0;
  }
  d->count.ok++;
  *payload = d->raw;
  return plen;
}

size_t frame_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t cap) {
  static uint8_t raw[FRAME_MAX_RAW];
  if (len == 0 || len > FRAME_MAX_PAYLOAD) return 0;
  memcpy(raw, payload, len);
  uint32_t crc = crc32_ieee(payload, len);
  raw[len] = (uint8_t)crc;
  raw[len + 1] = (uint8_t)(crc >> 8);
  raw[len + 2] = (uint8_t)(crc >> 16);
  raw[len + 3] = (uint8_t)(crc >> 24);
  if (cap < 1) return 0;
  size_t n = cobs_encode(raw, len + FRAME_CRC_LEN, out, cap - 1u);
  if (n == 0) return 0;
  out[n] = 0;
  return n + 1u;
}
