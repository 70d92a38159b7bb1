/* hal.h for the fuzz driver: no hardware, just a record of what the core asked for. */
#include <math.h>
#include <string.h>

#include "../src/hal.h"
#include "fuzz.h"

uint32_t fuzz_targets_applied;
bool fuzz_targets_in_limits = true;
bool fuzz_targets_in_step = true;
float fuzz_step_max;
uint32_t fuzz_tx_frames;

static float last[DUCK_JOINTS];
static bool servos_on;

bool hal_write(const uint8_t *bytes, size_t len) {
  (void)bytes;
  if (len > 0) fuzz_tx_frames++;
  return true;
}

void hal_set_torque(bool on) { servos_on = on; }

void hal_torque_query(void) {}

bool hal_torque_readback(uint32_t *off) {
  *off = servos_on ? 0u : DUCK_ALL_JOINTS;
  return true;
}

void hal_set_targets(const float pos[DUCK_JOINTS]) {
  fuzz_targets_applied++;
  for (int i = 0; i < DUCK_JOINTS; i++) {
    if (!(pos[i] >= duck_lower[i] && pos[i] <= duck_upper[i])) fuzz_targets_in_limits = false;
    if (!(fabsf(pos[i] - last[i]) <= fuzz_step_max + 1e-4f)) fuzz_targets_in_step = false;
  }
  memcpy(last, pos, sizeof last);
}

void hal_hold(void) { memcpy(last, duck_home, sizeof last); }

void hal_read_state(hal_state_t *out) {
  memset(out, 0, sizeof *out);
  memcpy(out->pos, duck_home, sizeof out->pos);
  out->accel[2] = 9.81f;
  out->battery_v = 8.0f;
}

void hal_quack(void) {}
