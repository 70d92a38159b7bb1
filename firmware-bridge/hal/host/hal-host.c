/*
 * hal.h for Linux: the joints, IMU and battery are simulated (sim.h); hal_write queues whole
 * frames in a transmit ring that the main loop drains without blocking, so a host that stops
 * reading can never stall the watchdog. Each simulated servo has its own torque-enable register,
 * answers a torque read-back at once, and the bus can be told to lose torque-off writes or to keep
 * servos silent, so the core's torque-off confirmation can be tested. The IMU reads level and
 * still unless tilt.h's schedule tips the trunk; with a yaw rate (--yaw-rate) the trunk turns left
 * at that rate while any joint moves, a stand-in for a duck stepping round, so a `turn` that ends on
 * the gyro can end here (the host has no legs on a floor: any stepping, a walk's too, turns it).
 * With a plant (--plant, plant.h) the joints and the IMU are another process's physics instead:
 * goals and torque go out to it, positions, velocities, gyro and accelerometer come back, and the
 * servos' torque registers, read-back and faults stay here as before.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../src/duck.h"
#include "../../src/hal.h"
#include "host.h"
#include "plant.h"
#include "sim.h"
#include "tilt.h"

#define SERVO_TAU_S 0.04f      /* first-order time constant of an XL330 under P control */
#define SERVO_MAX_RAD_S 6.0f   /* no-load speed */
#define BATTERY_MIN_V 6.0f
#define MOVING_RAD_S 0.05f     /* a joint faster than this is stepping */
#define DEG2RAD_F 0.017453292519943295f

static float pos[DUCK_JOINTS], vel[DUCK_JOINTS], target[DUCK_JOINTS];
static bool servo_on[DUCK_JOINTS];
static unsigned drop_writes;       /* torque-off writes the bus is to lose, next first */
static uint32_t silent;            /* servos that never answer a read-back */
static uint32_t readback_off, readback_answered;
static uint32_t torque_writes, torque_queries, target_writes;
static float battery_v;
static sim_config_t sim;
static uint32_t last_step;
static int stepped;
static plant_state_t plant; /* the physics' last whole state, while a plant steps the joints */
static bool plant_seen;

static uint8_t tx[TX_RING_BYTES];
static size_t tx_head, tx_len;

void sim_init(const sim_config_t *cfg) {
  sim = *cfg;
  battery_v = cfg->battery_start_v;
  memcpy(pos, duck_home, sizeof pos);
  memcpy(target, duck_home, sizeof target);
  memset(vel, 0, sizeof vel);
  memset(servo_on, 0, sizeof servo_on);
  drop_writes = 0;
  silent = 0;
  readback_off = readback_answered = 0;
  torque_writes = torque_queries = target_writes = 0;
  stepped = 0;
  plant_seen = false;
  tilt_reset();
}

static uint32_t torque_mask(void) {
  uint32_t mask = 0;
  for (int i = 0; i < DUCK_JOINTS; i++) mask |= servo_on[i] ? 1u << i : 0u;
  return mask;
}

/* What the servos are told, to the physics (a plant's) as it changes. */
static void tell_plant(void) { plant_send(target, torque_mask()); }

/* The joints as the physics left them; the battery drains as ever. */
static void step_plant(float dt) {
  plant_state_t s;
  if (plant_read(&s)) {
    plant = s;
    plant_seen = true;
    memcpy(pos, s.pos, sizeof pos);
    memcpy(vel, s.vel, sizeof vel);
  }
  battery_v -= sim.drain_v_per_s * dt * (torque_mask() != 0 ? 2.0f : 1.0f);
  if (battery_v < BATTERY_MIN_V) battery_v = BATTERY_MIN_V;
}

void sim_drop_torque_off_writes(unsigned n) { drop_writes = n; }
void sim_silence(uint32_t joints) { silent = joints; }
bool sim_servo_torque(int joint) { return servo_on[joint]; }
float sim_target(int joint) { return target[joint]; }
float sim_pos(int joint) { return pos[joint]; }
uint32_t sim_torque_writes(void) { return torque_writes; }
uint32_t sim_torque_queries(void) { return torque_queries; }
uint32_t sim_target_writes(void) { return target_writes; }

void sim_step(uint32_t now_ms) {
  tilt_advance(now_ms);
  if (!stepped) {
    last_step = now_ms;
    stepped = 1;
    return;
  }
  float dt = (float)(uint32_t)(now_ms - last_step) / 1000.0f;
  if (dt <= 0.0f) return;
  last_step = now_ms;
  if (plant_active()) {
    step_plant(dt);
    return;
  }
  float alpha = 1.0f - expf(-dt / SERVO_TAU_S);
  int holding = 0;
  for (int i = 0; i < DUCK_JOINTS; i++) {
    float step = 0.0f;
    holding |= servo_on[i];
    if (servo_on[i]) {
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
  battery_v -= sim.drain_v_per_s * dt * (holding ? 2.0f : 1.0f);
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

void hal_set_torque(bool on) {
  torque_writes++;
  if (!on && drop_writes > 0) {
    drop_writes--; /* lost on the bus: no servo heard it */
    return;
  }
  for (int i = 0; i < DUCK_JOINTS; i++) servo_on[i] = on;
  tell_plant();
}

void hal_torque_query(void) {
  torque_queries++;
  readback_answered = DUCK_ALL_JOINTS & ~silent;
  readback_off = 0;
  for (int i = 0; i < DUCK_JOINTS; i++) {
    if ((readback_answered & (1u << i)) && !servo_on[i]) readback_off |= 1u << i;
  }
}

bool hal_torque_readback(uint32_t *off) {
  *off = readback_off;
  return readback_answered == DUCK_ALL_JOINTS;
}

void hal_set_targets(const float p[DUCK_JOINTS]) {
  target_writes++;
  memcpy(target, p, sizeof target);
  tell_plant();
}

void hal_hold(void) {
  memcpy(target, pos, sizeof target);
  tell_plant();
}

void hal_read_state(hal_state_t *out) {
  memcpy(out->pos, pos, sizeof pos);
  memcpy(out->vel, vel, sizeof vel);
  if (plant_active()) {
    /* Until the physics has stepped once the trunk reads level and still. */
    static const float level[3] = {0.0f, 0.0f, 9.81f};
    memcpy(out->accel, plant_seen ? plant.accel : level, sizeof out->accel);
    memset(out->gyro, 0, sizeof out->gyro);
    if (plant_seen) memcpy(out->gyro, plant.gyro, sizeof out->gyro);
    out->contact[0] = out->contact[1] = true;
    out->battery_v = battery_v;
    return;
  }
  tilt_imu(out->accel, out->gyro); /* level and still unless a test tips it (tilt.h) */
  for (int i = 0; i < DUCK_JOINTS && sim.yaw_rate_deg_s != 0.0f; i++) {
    if (fabsf(vel[i]) > MOVING_RAD_S) {
      out->gyro[2] = sim.yaw_rate_deg_s * DEG2RAD_F;
      break;
    }
  }
  out->contact[0] = out->contact[1] = true;
  out->battery_v = battery_v;
}

void hal_quack(void) { fputs("quackd-fw-host: quack!\n", stderr); }
