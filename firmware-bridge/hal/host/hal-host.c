/*
 * hal.h for Linux: the joints, IMU and battery are simulated (sim.h); hal_write queues whole
 * frames in a transmit ring that the main loop drains without blocking, so a host that stops
 * reading can never stall the watchdog.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../src/duck.h"
#include "../../src/hal.h"
#include "host.h"
#include "sim.h"

#define SERVO_TAU_S 0.04f      /* first-order time constant of an XL330 under P control */
#define SERVO_MAX_RAD_S 6.0f   /* no-load speed */
#define BATTERY_MIN_V 6.0f

static float pos[DUCK_JOINTS], vel[DUCK_JOINTS], target[DUCK_JOINTS];
static int torque;
static float battery_v;
static sim_config_t sim;
static uint32_t last_step;
static int stepped;

static uint8_t tx[TX_RING_BYTES];
static size_t tx_head, tx_len;

void sim_init(const sim_config_t *cfg) {
  sim = *cfg;
  battery_v = cfg->battery_start_v;
  memcpy(pos, duck_home, sizeof pos);
  memcpy(target, duck_home, sizeof target);
  memset(vel, 0, sizeof vel);
  torque = 0;
  stepped = 0;
}

void sim_step(uint32_t now_ms) {
  if (!stepped) {
    last_step = now_ms;
    stepped = 1;
    return;
  }
  float dt = (float)(uint32_t)(now_ms - last_step) / 1000.0f;
  if (dt <= 0.0f) return;
  last_step = now_ms;
  float alpha = 1.0f - expf(-dt / SERVO_TAU_S);
  for (int i = 0; i < DUCK_JOINTS; i++) {
    float step = 0.0f;
    if (torque) {
      step = (target[i] - pos[i]) * alpha;
      float max = SERVO_MAX_RAD_S * dt;
      if (step > max) step = max;
      if (step < -max) step = -max;
    }
    float next = pos[i] + step;
    if (next < duck_lower[i]) next = duck_lower[i];
    if (next > duck_upper[i]) next = duck_upper[i];
    vel[i] = (next - pos[i]) / dt;
    pos[i] = next;
  }
  battery_v -= sim.drain_v_per_s * dt * (torque ? 2.0f : 1.0f);
  if (battery_v < BATTERY_MIN_V) battery_v = BATTERY_MIN_V;
}

bool hal_write(const uint8_t *bytes, size_t len) {
  if (len > TX_RING_BYTES - tx_len) return false;
  for (size_t i = 0; i < len; i++) tx[(tx_head + tx_len + i) % TX_RING_BYTES] = bytes[i];
  tx_len += len;
  return true;
}

size_t host_tx_peek(const uint8_t **bytes) {
  *bytes = tx + tx_head;
  size_t contiguous = TX_RING_BYTES - tx_head;
  return tx_len < contiguous ? tx_len : contiguous;
}

void host_tx_consume(size_t n) {
  tx_head = (tx_head + n) % TX_RING_BYTES;
  tx_len -= n;
}

void hal_set_torque(bool on) { torque = on ? 1 : 0; }

void hal_set_targets(const float p[DUCK_JOINTS]) { memcpy(target, p, sizeof target); }

void hal_hold(void) { memcpy(target, pos, sizeof target); }

void hal_read_state(hal_state_t *out) {
  memcpy(out->pos, pos, sizeof pos);
  memcpy(out->vel, vel, sizeof vel);
  out->gyro[0] = out->gyro[1] = out->gyro[2] = 0.0f;
  out->accel[0] = 0.0f;
  out->accel[1] = 0.0f;
  out->accel[2] = 9.81f; /* level and still: the IMU reads gravity only */
  out->contact[0] = out->contact[1] = true;
  out->battery_v = battery_v;
}

void hal_quack(void) { fputs("quackd-fw-host: quack!\n", stderr); }
