/*
 * The protocol core: JSON-RPC 2.0 over framed serial (PROTOCOL.md), the heartbeat watchdog and
 * target clamping. It knows nothing about the board: bytes and the time come in from the HAL's
 * main loop, frames and joint commands go out through hal.h.
 *
 * Invariant: a frame that fails its CRC never reaches the dispatcher, so it can never move a
 * joint; set_targets validates every value before it applies any, so nothing is half-applied;
 * no servo target moves further than max_vel x tick_ms from the previous one; torque off is
 * read back from the servos, and reported when it cannot be confirmed.
 */
#ifndef QD_PROTO_H
#define QD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"

#define PROTO_VERSION 1
#define PROTO_WATCHDOG_MS 200u
/* The step limit: no servo target moves further than max_vel x tick_ms from the one before. 10 rad/s
 * is just under an XL330-M288's no-load speed (103 rpm = 10.8 rad/s at 5 V): a policy that asks for
 * more is asking for what the servo cannot do. 20 ms is the host's control period (50 Hz). */
#define PROTO_MAX_VEL 10.0f
#define PROTO_TICK_MS 20u
/* A torque off is written, then read back from every servo; unconfirmed, it is written again. */
#define PROTO_TORQUE_ATTEMPTS 3u
#define PROTO_TORQUE_CONFIRM_MS 20u

enum {
  ERR_PARSE = -32700,
  ERR_INVALID_REQUEST = -32600,
  ERR_METHOD_NOT_FOUND = -32601,
  ERR_BAD_PARAMS = -32602,
  ERR_OUT_OF_LIMIT = -32001,
  ERR_TORQUE_OFF = -32002,
  ERR_TORQUE_UNCONFIRMED = -32003,
};

typedef struct {
  const char *firmware; /* e.g. "quackd-fw 0.1.0" */
  const char *board;    /* e.g. "host", "rp2040" */
  uint32_t state_hz;    /* state notifications per second; 0 = only on get_state */
  uint32_t watchdog_ms; /* PROTO_WATCHDOG_MS unless a test says otherwise */
  uint32_t boot_id;     /* random per boot, so the host can tell a restart from a hiccup */
  /* The rest may be left 0 for the defaults above. */
  float max_vel;              /* rad/s, every joint */
  uint32_t tick_ms;           /* the period max_vel is applied over */
  uint32_t torque_attempts;   /* torque-off writes before it is reported unconfirmed (>= 1) */
  uint32_t torque_confirm_ms; /* how long one write waits for every servo's read-back */
} proto_config_t;

typedef struct {
  frame_counters_t rx;
  uint32_t json;       /* frames with a good CRC that were not a valid JSON-RPC message */
  uint32_t tx_dropped; /* frames the link had no room for */
  uint32_t targets;    /* set_targets calls applied */
  uint32_t limited;    /* ... of which the step limit cut at least one joint short */
  uint32_t torque_retries;     /* torque-off writes repeated because a read-back did not confirm */
  uint32_t torque_unconfirmed; /* torque offs given up on after torque_attempts writes */
  uint32_t quacks;
  uint32_t faults;
} proto_stats_t;

/* Starts with torque off, and confirms it (a reset MCU may find its servos still holding). */
void proto_init(const proto_config_t *cfg, uint32_t now_ms);
void proto_rx(const uint8_t *bytes, size_t len, uint32_t now_ms);
/* Call often (>= 1 kHz is plenty): runs the watchdog, the step limit's slew towards the last
 * set_targets, the torque-off read-back and the state stream. */
void proto_poll(uint32_t now_ms);
const proto_stats_t *proto_stats(void);
bool proto_torque_on(void);
/* The configuration in force (defaults filled in). */
const proto_config_t *proto_config(void);

#endif
