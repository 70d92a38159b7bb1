/*
 * The protocol core: JSON-RPC 2.0 over framed serial (PROTOCOL.md), the heartbeat watchdog and
 * target clamping. It knows nothing about the board: bytes and the time come in from the HAL's
 * main loop, frames and joint commands go out through hal.h.
 *
 * Invariant: a frame that fails its CRC never reaches the dispatcher, so it can never move a
 * joint; set_targets validates every value before it applies any, so nothing is half-applied.
 */
#ifndef QD_PROTO_H
#define QD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#define PROTO_VERSION 1
#define PROTO_WATCHDOG_MS 200u

enum {
  ERR_PARSE = -32700,
  ERR_INVALID_REQUEST = -32600,
  ERR_METHOD_NOT_FOUND = -32601,
  ERR_BAD_PARAMS = -32602,
  ERR_OUT_OF_LIMIT = -32001,
  ERR_TORQUE_OFF = -32002,
};

typedef struct {
  const char *firmware; /* e.g. "quackd-fw 0.1.0" */
  const char *board;    /* e.g. "host", "rp2040" */
  uint32_t state_hz;    /* state notifications per second; 0 = only on get_state */
  uint32_t watchdog_ms; /* PROTO_WATCHDOG_MS unless a test says otherwise */
  uint32_t boot_id;     /* random per boot, so the host can tell a restart from a hiccup */
} proto_config_t;

typedef struct {
  frame_counters_t rx;
  uint32_t json;       /* frames with a good CRC that were not a valid JSON-RPC message */
  uint32_t tx_dropped; /* frames the link had no room for */
  uint32_t targets;    /* set_targets calls applied */
  uint32_t quacks;
  uint32_t faults;
} proto_stats_t;

void proto_init(const proto_config_t *cfg, uint32_t now_ms);
void proto_rx(const uint8_t *bytes, size_t len, uint32_t now_ms);
/* Call often (>= 1 kHz is plenty): runs the watchdog and the state stream. */
void proto_poll(uint32_t now_ms);
const proto_stats_t *proto_stats(void);
bool proto_torque_on(void);

#endif
