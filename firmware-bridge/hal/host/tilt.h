/*
 * The host simulation's tilt hook, for tests of fall handling: a schedule of trunk poses that the
 * simulated IMU reads, so a test can tip the duck over and stand it up again. Host only: the
 * RP2040 build has a real IMU and never compiles this. A step is `MS:DEG[:AXIS]`
 * (quackd-fw-host --tilt-at): at MS ms after boot, or at the next SIGUSR1 when MS is `USR1`, the
 * trunk starts to tip towards DEG degrees about AXIS (`pitch`, the default: positive falls
 * forward; `roll`: positive falls to the right) at a fall's pace; DEG 0 stands it up again.
 */
#ifndef QD_HOST_TILT_H
#define QD_HOST_TILT_H

#include <stdbool.h>
#include <stdint.h>

#define TILT_MAX_STEPS 8
/* A 20 cm duck goes from standing to lying in about a third of a second. */
#define TILT_RATE_DEG_S 270.0f

enum { TILT_ROLL = 0, TILT_PITCH = 1 };

typedef struct {
  uint32_t at_ms; /* after boot; unused when on_signal */
  bool on_signal; /* waits for SIGUSR1 instead of a time */
  float deg;
  int axis; /* TILT_ROLL or TILT_PITCH */
} tilt_step_t;

/* `MS:DEG[:AXIS]` → *out; 0, or -1 (and *out untouched) when it does not parse or is out of range. */
int tilt_parse(const char *text, tilt_step_t *out);

/* Level and still, no steps; the next tilt_advance is boot, the time steps count from. */
void tilt_reset(void);
/* Queue a step after the others; -1 when TILT_MAX_STEPS are queued already. */
int tilt_add(const tilt_step_t *step);
/* SIGUSR1 arrived: the next step starts now, whatever its time. */
void tilt_signal(void);
/* Starts the steps that are due and moves the trunk towards the pose they ask for. */
void tilt_advance(uint32_t now_ms);
/* What the IMU reads now: the reaction to gravity (m/s^2) and the tipping rate (rad/s), trunk frame. */
void tilt_imu(float accel[3], float gyro[3]);
/* Degrees from upright now (for tests). */
float tilt_now_deg(void);

#endif
