/*
 * The host HAL's joints and IMU from another process's physics (--plant PATH): a physics
 * simulator (quackd's MuJoCo twin, in the tests) steps the duck's body and this firmware is its
 * servo bus and IMU. The two share one small file, each writing only its own record:
 *
 *   offset   0  goals (the firmware's):  u32 seq, u32 torque mask (bit per joint),
 *                                        f32 goal[14] (rad), u32 seq again
 *   offset 128  state (the physics'):    u32 seq, f32 pos[14] (rad), f32 vel[14] (rad/s),
 *                                        f32 gyro[3] (rad/s), f32 accel[3] (m/s², +9.8 on z upright),
 *                                        u32 seq again
 *
 * little-endian, packed. A record whose two seqs differ was read mid-write and is read again
 * later; a state seq of 0 means the physics has not stepped yet.
 */
#ifndef QD_HOST_PLANT_H
#define QD_HOST_PLANT_H

#include <stdbool.h>
#include <stdint.h>

#include "../../src/duck.h"

#define PLANT_GOALS_AT 0
#define PLANT_STATE_AT 128
#define PLANT_FILE_BYTES 512

typedef struct {
  float pos[DUCK_JOINTS];
  float vel[DUCK_JOINTS];
  float gyro[3];
  float accel[3];
} plant_state_t;

/* Opens the shared file (made by the physics side). False with errno set when it cannot. */
bool plant_open(const char *path);
bool plant_active(void);
/* The goals and which servos hold torque, for the physics to step with. */
void plant_send(const float goal[DUCK_JOINTS], uint32_t torque_mask);
/* The newest whole state the physics wrote; false while it has written none (or only a torn one). */
bool plant_read(plant_state_t *out);

#endif
