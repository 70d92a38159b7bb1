/*
 * The hardware abstraction layer: everything the protocol core needs from a board, and nothing
 * else. A HAL is one C file (hal/host, hal/rp2040). The core never reads a clock itself: the
 * board's main loop passes the time in, which keeps the core deterministic under test.
 */
#ifndef QD_HAL_H
#define QD_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "duck.h"

typedef struct {
  float pos[DUCK_JOINTS]; /* rad */
  float vel[DUCK_JOINTS]; /* rad/s */
  float gyro[3];          /* rad/s, trunk frame */
  float accel[3];         /* m/s^2, trunk frame */
  bool contact[2];        /* left, right foot */
  float battery_v;
} hal_state_t;

/* Queue one whole frame for the link. Returns false (and sends nothing) if it does not fit. */
bool hal_write(const uint8_t *bytes, size_t len);
/* Write torque enable to every servo. The write may be lost on the bus: the core reads it back. */
void hal_set_torque(bool on);
/* Ask every servo for its torque-enable register, without waiting for the answers. */
void hal_torque_query(void);
/*
 * The answers to the last hal_torque_query: bit i of *off set when joint i's servo answered
 * "torque disabled". Returns true once every servo has answered (false while answers are due,
 * or when one never comes: the core's own timeout covers that).
 */
bool hal_torque_readback(uint32_t *off);
/* Targets are already validated, clamped to duck_lower/duck_upper and step-limited by the core. */
void hal_set_targets(const float pos[DUCK_JOINTS]);
/* Make the current measured positions the targets, so torque-on holds the pose it finds. */
void hal_hold(void);
void hal_read_state(hal_state_t *out);
void hal_quack(void);

#endif
