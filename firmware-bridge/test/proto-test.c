/*
 * Deterministic tests of the protocol core (make check): the core never reads a clock, so the
 * watchdog and the step limit are tested to the millisecond here rather than over a pty, where a
 * loaded machine blurs them; and target values JSON.stringify cannot produce. A recording HAL
 * decodes every frame the core sends and keeps every target vector it was given. (The torque-off
 * read-back is tested against the host HAL's simulated servos in sim-test.c.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/frame.h"
#include "../src/hal.h"
#include "../src/proto.h"

static frame_decoder_t out_dec;
static char sent[64][FRAME_MAX_PAYLOAD + 1];
static int nsent;
static uint32_t targets_applied;
static float last_target[DUCK_JOINTS];
static float biggest_step; /* the largest move of any joint between two target vectors */
static float hold_pos[DUCK_JOINTS];
static int failures;

bool hal_write(const uint8_t *bytes, size_t len) {
  for (size_t i = 0; i < len; i++) {
    const uint8_t *p = NULL;
    size_t n = frame_decoder_push(&out_dec, bytes[i], &p);
    if (n > 0 && nsent < 64) {
      memcpy(sent[nsent], p, n);
      sent[nsent++][n] = '\0';
    }
  }
  return true;
}
static bool servos_on;
void hal_set_torque(bool on) { servos_on = on; }
void hal_torque_query(void) {}
bool hal_torque_readback(uint32_t *off) {
  *off = servos_on ? 0u : DUCK_ALL_JOINTS;
  return true;
}
void hal_set_targets(const float pos[DUCK_JOINTS]) {
  for (int i = 0; i < DUCK_JOINTS; i++) {
    float d = fabsf(pos[i] - last_target[i]);
    if (d > biggest_step) biggest_step = d;
  }
  memcpy(last_target, pos, sizeof last_target);
  targets_applied++;
}
void hal_hold(void) { memcpy(last_target, hold_pos, sizeof last_target); }
void hal_read_state(hal_state_t *out) {
  memset(out, 0, sizeof *out);
  memcpy(out->pos, hold_pos, sizeof out->pos);
  out->battery_v = 8.0f;
}
void hal_quack(void) {}

#define CHECK(cond, what)                                                   \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "proto-test: FAIL: %s (line %d)\n", what, __LINE__); \
      failures++;                                                           \
    }                                                                       \
  } while (0)

static void send_json(const char *json, uint32_t now) {
  uint8_t wire[FRAME_MAX_WIRE];
  size_t w = frame_encode((const uint8_t *)json, strlen(json), wire, sizeof wire);
  proto_rx(wire, w, now);
}

static int faults_sent(void) {
  int n = 0;
  for (int i = 0; i < nsent; i++) n += strstr(sent[i], "\"method\":\"fault\"") != NULL;
  return n;
}

static void reset_with(uint32_t now, float max_vel, uint32_t tick_ms, uint32_t watchdog_ms) {
  frame_decoder_init(&out_dec);
  nsent = 0;
  targets_applied = 0;
  biggest_step = 0.0f;
  memset(hold_pos, 0, sizeof hold_pos);
  proto_init(&(proto_config_t){.firmware = "test",
                               .board = "test",
                               .watchdog_ms = watchdog_ms,
                               .boot_id = 1,
                               .max_vel = max_vel,
                               .tick_ms = tick_ms},
             now);
}

static void reset(uint32_t now) { reset_with(now, 0.0f, 0u, PROTO_WATCHDOG_MS); }
/* The step-limit tests run for longer than a watchdog period without heartbeats. */
static void reset_patient(uint32_t now) { reset_with(now, 0.0f, 0u, 60000u); }

static const char *last_sent(void) { return nsent > 0 ? sent[nsent - 1] : ""; }

/* set_targets with every joint at pos[i]. */
static void send_targets(const float pos[DUCK_JOINTS], uint32_t now) {
  char json[512];
  int n = snprintf(json, sizeof json, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"set_targets\",\"params\":{\"pos\":[");
  for (int i = 0; i < DUCK_JOINTS; i++) n += snprintf(json + n, sizeof json - (size_t)n, "%s%.6f", i ? "," : "", (double)pos[i]);
  snprintf(json + n, sizeof json - (size_t)n, "]}}");
  send_json(json, now);
}

static void all(float out[DUCK_JOINTS], float v) {
  for (int i = 0; i < DUCK_JOINTS; i++) out[i] = v;
}

static bool near(float a, float b) { return fabsf(a - b) < 1e-4f; }

static const char torque_on[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"torque\",\"params\":{\"on\":true}}";
static const char heartbeat[] = "{\"jsonrpc\":\"2.0\",\"method\":\"heartbeat\"}";

/* Torque off in exactly the millisecond watchdog_ms have passed without a heartbeat, one fault. */
static void watchdog_fires_at_200_ms(void) {
  reset(1000);
  send_json(torque_on, 1000);
  for (uint32_t t = 1001; t < 1200; t++) proto_poll(t);
  CHECK(proto_torque_on() && faults_sent() == 0, "watchdog fired before 200 ms");
  proto_poll(1200);
  CHECK(!proto_torque_on(), "watchdog did not cut torque at 200 ms");
  CHECK(faults_sent() == 1 && strstr(sent[nsent - 1], "\"code\":\"watchdog\"") != NULL, "no watchdog fault sent");
  proto_poll(1500);
  CHECK(faults_sent() == 1, "a second fault while torque was already off");
  send_json("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"set_targets\",\"params\":{\"pos\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0]}}", 1500);
  CHECK(targets_applied == 0 && strstr(sent[nsent - 1], "-32002") != NULL, "targets applied after a watchdog fault");
}

/* A heartbeat notification restarts the 200 ms. */
static void heartbeat_feeds_the_watchdog(void) {
  reset(0);
  send_json(torque_on, 0);
  send_json(heartbeat, 150);
  proto_poll(349);
  CHECK(proto_torque_on(), "watchdog fired 200 ms after torque on, despite a heartbeat at 150");
  proto_poll(350);
  CHECK(!proto_torque_on(), "watchdog did not fire 200 ms after the last heartbeat");
}

/* The clock wraps at 2^32 ms (49.7 days): the watchdog neither fires early nor never. */
static void watchdog_across_the_clock_wrap(void) {
  uint32_t t0 = 0xFFFFFFFFu - 99u;
  reset(t0);
  send_json(torque_on, t0);
  proto_poll(t0 + 199u); /* 99 after the wrap */
  CHECK(proto_torque_on(), "watchdog fired early across the clock wrap");
  proto_poll(t0 + 200u);
  CHECK(!proto_torque_on() && faults_sent() == 1, "watchdog did not fire at 200 ms across the clock wrap");
}

/* PROTOCOL.md: torque {"on":true} counts as a heartbeat, also while torque is already on. */
static void torque_on_counts_as_a_heartbeat(void) {
  reset(0);
  send_json(torque_on, 0);
  send_json(torque_on, 150);
  proto_poll(300);
  CHECK(proto_torque_on() && faults_sent() == 0, "torque on (already on) did not count as a heartbeat");
  proto_poll(349);
  CHECK(proto_torque_on(), "watchdog fired before 200 ms after the last torque on");
  proto_poll(350);
  CHECK(!proto_torque_on(), "watchdog did not fire 200 ms after the last torque on");
}

/* Targets: a number beyond double range is refused whole; a huge finite one is clamped. */
static void non_finite_targets_refused(void) {
  reset(0);
  send_json(torque_on, 0);
  send_json("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"set_targets\",\"params\":{\"pos\":[1e400,0,0,0,0,0,0,0,0,0,0,0,0,0]}}", 1);
  CHECK(targets_applied == 0 && strstr(sent[nsent - 1], "-32602") != NULL, "an infinite target was not refused");
  send_json("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"set_targets\",\"params\":{\"pos\":[1e300,-1e300,0,0,0,0,0,0,0,0,0,0,0,0]}}", 2);
  CHECK(targets_applied == 1 && strstr(sent[nsent - 1], "\"clamped\":[0,1]") != NULL, "huge targets were not clamped");
  /* ... and approached within the step limit: 0.2 rad (10 rad/s x 20 ms), never a jump to the limit. */
  CHECK(strstr(last_sent(), "\"limited\":[0,1]") != NULL, "a jump to the limits was not step-limited");
  CHECK(near(last_target[0], 0.2f) && near(last_target[1], -0.2f), "first step towards a clamped target is not one step");
}

/*
 * The step limit (defaults: 10 rad/s x 20 ms = 0.2 rad): a far target is cut to one step and
 * reported, then approached one step per tick by proto_poll; between ticks nothing moves.
 */
static void step_limit_cuts_and_slews(void) {
  reset_patient(0);
  send_json(torque_on, 0);
  CHECK(strstr(last_sent(), "\"torque\":true") != NULL, "torque on was not answered");
  float want[DUCK_JOINTS];
  all(want, 0.0f);
  want[3] = 1.0f;  /* left_knee: 5 steps away */
  want[7] = -0.1f; /* head_yaw: within one step */
  send_targets(want, 1);
  CHECK(strstr(last_sent(), "\"clamped\":[],\"limited\":[3]") != NULL, "set_targets did not report joint 3 as limited");
  CHECK(near(last_target[3], 0.2f) && near(last_target[7], -0.1f), "the first step is not min(goal, 0.2 rad)");
  CHECK(proto_stats()->limited == 1 && proto_stats()->targets == 1, "limited set_targets not counted");
  uint32_t writes = targets_applied;
  for (uint32_t t = 2; t < 21; t++) proto_poll(t);
  CHECK(targets_applied == writes && near(last_target[3], 0.2f), "the target moved again before a tick had passed");
  proto_poll(21);
  CHECK(near(last_target[3], 0.4f), "no step one tick later");
  for (uint32_t t = 22; t <= 200; t++) proto_poll(t);
  CHECK(near(last_target[3], 1.0f) && near(last_target[7], -0.1f), "the slew did not reach the goal");
  CHECK(targets_applied == writes + 4u, "the slew took other than 4 more steps to cover 0.8 rad");
  CHECK(biggest_step <= 0.2f + 1e-4f, "a target moved more than one step");
  /* A later set_targets replaces the goal; the slew follows it from where the servos are. */
  want[3] = -1.0f;
  send_targets(want, 300);
  CHECK(near(last_target[3], 0.8f) && strstr(last_sent(), "\"limited\":[3]") != NULL, "reversal not step-limited");
  CHECK(proto_stats()->limited == 2, "second limited call not counted");
  char buf[64];
  snprintf(buf, sizeof buf, "\"limited\":%u", (unsigned)proto_stats()->limited);
  send_json("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"get_state\"}", 301);
  CHECK(strstr(last_sent(), buf) != NULL, "state does not carry the limited count");
}

/*
 * A host that sends every 20 ms within the limit (its own safety stage) is never cut, though its
 * calls arrive up to 5 ms early or late (a USB link, a busy Pi).
 */
static void step_limit_spares_a_host_within_it(void) {
  reset_patient(0);
  send_json(torque_on, 0);
  float want[DUCK_JOINTS];
  all(want, 0.0f);
  srand(7);
  uint32_t t = 0, polled = 0;
  for (int k = 1; k <= 500; k++) {
    float s = (k / 10) % 2 == 0 ? 0.2f : -0.2f; /* full steps, back and forth */
    for (int i = 0; i < DUCK_JOINTS; i++) want[i] = fmaxf(duck_lower[i], fminf(duck_upper[i], want[i] + s));
    int jitter = k % 2 == 0 ? 5 : -5; /* the worst case: late, early, late... */
    if (k > 250) jitter = rand() % 11 - 5;
    t = (uint32_t)(100 + 20 * k + jitter);
    while (polled < t) proto_poll(polled++);
    send_targets(want, t);
    if (strstr(last_sent(), "\"limited\":[]") == NULL) {
      fprintf(stderr, "proto-test: call %d at %u ms: %s\n", k, (unsigned)t, last_sent());
      break;
    }
  }
  CHECK(proto_stats()->limited == 0, "a host moving at most max_vel x 20 ms per call was step-limited");
}

/* Calls faster than the tick cannot add up to more than max_vel: a burst is held to 1.5 steps. */
static void step_limit_bounds_a_burst(void) {
  reset_patient(0);
  send_json(torque_on, 0);
  float want[DUCK_JOINTS];
  all(want, 0.0f);
  want[0] = 0.5f;
  for (int k = 0; k < 10; k++) send_targets(want, 5);
  CHECK(near(last_target[0], 0.3f), "ten calls in one millisecond moved a joint further than 1.5 steps");
  CHECK(biggest_step <= 0.2f + 1e-4f, "one call moved a target more than one step");
  send_targets(want, 15); /* 10 ms later: 0.1 rad of allowance */
  CHECK(near(last_target[0], 0.4f), "the allowance did not refill at max_vel");
}

/* max_vel and tick_ms are configured at start-up and announced in hello. */
static void step_limit_is_configurable(void) {
  reset_with(0, 2.5f, 10u, 60000u);
  send_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}", 0);
  CHECK(strstr(last_sent(), "\"max_vel\":[2.5,2.5,2.5,2.5,2.5,2.5,2.5,2.5,2.5,2.5,2.5,2.5,2.5,2.5]") != NULL,
        "hello does not announce max_vel per joint");
  CHECK(strstr(last_sent(), "\"tick_ms\":10") != NULL, "hello does not announce tick_ms");
  send_json(torque_on, 0);
  float want[DUCK_JOINTS];
  all(want, 0.0f);
  want[2] = 1.0f;
  send_targets(want, 1);
  CHECK(near(last_target[2], 0.025f), "2.5 rad/s x 10 ms is not a 0.025 rad step");
  proto_poll(10);
  CHECK(near(last_target[2], 0.025f), "stepped before 10 ms");
  proto_poll(11);
  CHECK(near(last_target[2], 0.05f), "no step at 10 ms");
  reset(0);
  send_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}", 0);
  CHECK(strstr(last_sent(), "\"max_vel\":[10,") != NULL && strstr(last_sent(), "\"tick_ms\":20") != NULL,
        "the defaults are not 10 rad/s and 20 ms");
}

/* Torque on holds the pose it finds, and the step limit starts from there, not from home. */
static void step_limit_starts_at_the_held_pose(void) {
  reset_patient(0);
  all(hold_pos, 0.0f);
  hold_pos[4] = 0.9f;
  send_json(torque_on, 0);
  float want[DUCK_JOINTS];
  all(want, 0.0f);
  want[4] = 0.9f;
  send_targets(want, 1);
  CHECK(strstr(last_sent(), "\"limited\":[]") != NULL && near(last_target[4], 0.9f), "the held pose was not the start");
  /* A pose outside the limits starts from the limit: targets never leave the limits. */
  send_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"torque\",\"params\":{\"on\":false}}", 2);
  proto_poll(3);
  hold_pos[4] = 2.0f;
  send_json(torque_on, 4);
  send_targets(want, 5);
  CHECK(near(last_target[4], 1.3f) && strstr(last_sent(), "\"limited\":[4]") != NULL, "not approached from the upper limit");
  CHECK(last_target[4] <= duck_upper[4], "a target outside the limits");
}

int main(void) {
  watchdog_fires_at_200_ms();
  watchdog_across_the_clock_wrap();
  non_finite_targets_refused();
  heartbeat_feeds_the_watchdog();
  torque_on_counts_as_a_heartbeat();
  step_limit_cuts_and_slews();
  step_limit_spares_a_host_within_it();
  step_limit_bounds_a_burst();
  step_limit_is_configurable();
  step_limit_starts_at_the_held_pose();
  printf("proto-test: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
