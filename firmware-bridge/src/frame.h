/*
 * Framing that survives a noisy wire: payload + CRC-32 (little-endian), COBS-encoded, ended by a
 * 0x00 delimiter. The decoder is a byte-at-a-time state machine with a hard length limit; every
 * frame it drops is counted by reason, and only a frame whose CRC matches is ever handed on.
 */
#ifndef QD_FRAME_H
#define QD_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_MAX_PAYLOAD 1024u
#define FRAME_CRC_LEN 4u
#define FRAME_MAX_RAW (FRAME_MAX_PAYLOAD + FRAME_CRC_LEN)
/* COBS adds one byte per 254 plus one; the delimiter is not stored. */
#define FRAME_MAX_ENCODED (FRAME_MAX_RAW + FRAME_MAX_RAW / 254u + 1u)
/* Encoded size including the trailing delimiter: what frame_encode needs at most. */
#define FRAME_MAX_WIRE (FRAME_MAX_ENCODED + 1u)

typedef struct {
  uint32_t ok;        /* frames accepted */
  uint32_t crc;       /* CRC mismatch */
  uint32_t malformed; /* COBS structure broken */
  uint32_t overlong;  /* more bytes than FRAME_MAX_ENCODED before a delimiter */
  uint32_t runt;      /* shorter than CRC + 1 payload byte */
} frame_counters_t;

typedef struct {
  uint8_t enc[FRAME_MAX_ENCODED];
  size_t len;
  bool discarding; /* after an overlong frame: skip to the next delimiter */
  uint8_t raw[FRAME_MAX_RAW];
  frame_counters_t count;
} frame_decoder_t;

void frame_decoder_init(frame_decoder_t *d);

/*
 * Feed one byte. When it completes a frame whose CRC matches, returns the payload length (> 0)
 * and points *payload into the decoder (valid until the next push); otherwise returns 0.
 */
size_t frame_decoder_push(frame_decoder_t *d, uint8_t byte, const uint8_t **payload);

/* Frame a payload. Returns the bytes written to out (delimiter included), or 0 if it won't fit. */
size_t frame_encode(const uint8_t *payload, size_t len, uint8_t *out, size_t cap);

#endif
