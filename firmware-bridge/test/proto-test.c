/*
 * Deterministic tests of the protocol core (make check): the core never reads a clock, so the
 * watchdog is tested to the millisecond here rather than over a pty, where a loaded machine
 * blurs it; and target values JSON.stringify cannot produce. A recording HAL decodes every frame
 * the core sends.
 */
#include <stdio.h>
#include <string.h>

#include "../src/frame.h"
#include "../src/hal.h"
#include "../src/proto.h"

static frame_decoder_t out_dec;
static char sent[64][FRAME_MAX_PAYLOAD + 1];
static int nsent;
static uint32_t targets_applied;
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
void hal_set_torque(bool on) { (void)on; }
void hal_set_targets(const float pos[DUCK_JOINTS]) {
  (void)pos;
  targets_applied++;
}
void hal_hold(void) {}
void hal_read_state(hal_state_t *out) {
  memset(out, 0, sizeof *out);
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

static void reset(uint32_t now) {
  frame_decoder_init(&out_dec);
  nsent = 0;
  targets_applied = 0;
  proto_init(&(proto_config_t){"test", "test", 0, PROTO_WATCHDOG_MS, 1}, now);
}

static const char torque_on[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"torque\",\"params\":{\"on\":true}}";
static const char heartbeat[] = "{\"jsonrpc\":\"2.0\",\"method\":\"heartbeat\"}";

/* Torque off exactly when more than watchdog_ms pass without a heartbeat, with one fault. */
static void watchdog_fires_after_200_ms(void) {
  reset(1000);
  send_json(torque_on, 1000);
  proto_poll(1200);
  CHECK(proto_torque_on() && faults_sent() == 0, "watchdog fired at 200 ms, not after");
  proto_poll(1201);
  CHECK(!proto_torque_on(), "watchdog did not cut torque at 201 ms");
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
  proto_poll(350);
  CHECK(proto_torque_on(), "watchdog fired 200 ms after torque on, despite a heartbeat at 150");
  proto_poll(351);
  CHECK(!proto_torque_on(), "watchdog did not fire 201 ms after the last heartbeat");
}

/* PROTOCOL.md: torque {"on":true} counts as a heartbeat, also while torque is already on. */
static void torque_on_counts_as_a_heartbeat(void) {
  reset(0);
  send_json(torque_on, 0);
  send_json(torque_on, 150);
  proto_poll(300);
  CHECK(proto_torque_on() && faults_sent() == 0, "torque on (already on) did not count as a heartbeat");
  proto_poll(351);
  CHECK(!proto_torque_on(), "watchdog did not fire 201 ms after the last torque on");
}

/* Targets: a number beyond double range is refused whole; a huge finite one is clamped. */
static void non_finite_targets_refused(void) {
  reset(0);
  send_json(torque_on, 0);
  send_json("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"set_targets\",\"params\":{\"pos\":[1e400,0,0,0,0,0,0,0,0,0,0,0,0,0]}}", 1);
  CHECK(targets_applied == 0 && strstr(sent[nsent - 1], "-32602") != NULL, "an infinite target was not refused");
  send_json("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"set_targets\",\"params\":{\"pos\":[1e300,-1e300,0,0,0,0,0,0,0,0,0,0,0,0]}}", 2);
  CHECK(targets_applied == 1 && strstr(sent[nsent - 1], "\"clamped\":[0,1]") != NULL, "huge targets were not clamped");
}

int main(void) {
  watchdog_fires_after_200_ms();
  non_finite_targets_refused();
  heartbeat_feeds_the_watchdog();
  torque_on_counts_as_a_heartbeat();
  printf("proto-test: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
