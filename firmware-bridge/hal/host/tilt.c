/*
 * tilt.h: the trunk's roll and pitch each move towards the last started step's pose at
 * TILT_RATE_DEG_S, and the gyro reads that rate, so the host sees a fall that takes a few state
 * periods, not a jump. The accelerometer reads gravity's reaction in the trunk frame for the
 * trunk rotated by roll, then pitch: (-g sin p, g sin r cos p, g cos r cos p), which quackd reads
 * back as exactly that roll and pitch.
 */
#include "tilt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRAVITY 9.81f
#define DEG2RAD 0.017453292519943295f
#define MAX_AT_MS 86400000.0 /* a day */

static tilt_step_t steps[TILT_MAX_STEPS];
static int nsteps, next;
static float angle[2], goal[2], rate[2]; /* deg, deg, deg/s; by TILT_ROLL / TILT_PITCH */
static uint32_t boot_ms, last_ms;
static bool started;
static unsigned signals;

int tilt_parse(const char *text, tilt_step_t *out) {
  tilt_step_t s = {0, false, 0.0f, TILT_PITCH};
  char *end = NULL;
  const char *deg_text;
  if (text == NULL) return -1;
  if (strncmp(text, "USR1:", 5) == 0) {
    s.on_signal = true;
    deg_text = text + 5;
  } else {
    double ms = strtod(text, &end);
    if (end == text || *end != ':' || !(ms >= 0.0 && ms <= MAX_AT_MS)) return -1;
    s.at_ms = (uint32_t)ms;
    deg_text = end + 1;
  }
  double deg = strtod(deg_text, &end);
  if (end == deg_text || !(deg >= -180.0 && deg <= 180.0)) return -1;
  s.deg = (float)deg;
  if (*end == ':') {
    if (strcmp(end + 1, "pitch") == 0) s.axis = TILT_PITCH;
    else if (strcmp(end + 1, "roll") == 0) s.axis = TILT_ROLL;
    else return -1;
  } else if (*end != '\0') {
    return -1;
  }
  *out = s;
  return 0;
}

void tilt_reset(void) {
  nsteps = next = 0;
  memset(angle, 0, sizeof angle);
  memset(goal, 0, sizeof goal);
  memset(rate, 0, sizeof rate);
  started = false;
  signals = 0;
}

int tilt_add(const tilt_step_t *step) {
  if (nsteps >= TILT_MAX_STEPS) return -1;
  steps[nsteps++] = *step;
  return 0;
}

void tilt_signal(void) { signals++; }

static void start(const tilt_step_t *s) {
  /* One axis at a time: tipping over sideways after a forward fall first comes back through upright. */
  goal[s->axis] = s->deg;
  goal[1 - s->axis] = 0.0f;
}

void tilt_advance(uint32_t now_ms) {
  if (!started) {
    started = true;
    boot_ms = last_ms = now_ms;
  }
  for (; signals > 0 && next < nsteps; signals--) start(&steps[next++]);
  signals = 0; /* a signal with no step left does nothing, now or later */
  while (next < nsteps && !steps[next].on_signal && now_ms - boot_ms >= steps[next].at_ms) start(&steps[next++]);
  float dt = (float)(uint32_t)(now_ms - last_ms) / 1000.0f;
  last_ms = now_ms;
  for (int a = 0; a < 2; a++) {
    float max = TILT_RATE_DEG_S * dt;
    float move = goal[a] - angle[a];
    if (move > max) move = max;
    if (move < -max) move = -max;
    angle[a] += move;
    rate[a] = dt > 0.0f ? move / dt : 0.0f;
  }
}

void tilt_imu(float accel[3], float gyro[3]) {
  float r = angle[TILT_ROLL] * DEG2RAD, p = angle[TILT_PITCH] * DEG2RAD;
  accel[0] = -GRAVITY * sinf(p);
  accel[1] = GRAVITY * sinf(r) * cosf(p);
  accel[2] = GRAVITY * cosf(r) * cosf(p);
  gyro[0] = rate[TILT_ROLL] * DEG2RAD;
  gyro[1] = rate[TILT_PITCH] * DEG2RAD;
  gyro[2] = 0.0f;
}

float tilt_now_deg(void) {
  float r = angle[TILT_ROLL] * DEG2RAD, p = angle[TILT_PITCH] * DEG2RAD;
  float c = cosf(r) * cosf(p);
  if (c > 1.0f) c = 1.0f;
  if (c < -1.0f) c = -1.0f;
  return acosf(c) / DEG2RAD;
}
