/*
 * The core against the host HAL's simulated servos (make check), stepped on a test clock: the
 * torque-off confirmation (read back from every servo, written again when the bus lost the write,
 * reported when it cannot be confirmed) and the step limit as the servos see it. The bus faults
 * are the simulator's: sim_drop_torque_off_writes (a write no servo hears) and sim_silence (a servo
 * that never answers the read-back). Also the tilt hook (tilt.h): what the simulated IMU reads
 * as a scheduled or signalled fall tips the trunk, and the --tilt-at steps it parses.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../hal/host/host.h"
#include "../hal/host/plant.h"
#include "../hal/host/sim.h"
#include "../hal/host/tilt.h"
#include "../src/hal.h"
#include "../src/duck.h"
#include "../src/frame.h"
#include "../src/proto.h"

static int failures;
static frame_decoder_t dec;
static char sent[128][FRAME_MAX_PAYLOAD + 1];
static int nsent;
static uint32_t clock_ms;

#define CHECK(cond, what)                                                 \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "sim-test: FAIL: %s (line %d)\n", what, __LINE__); \
      failures++;                                                         \
    }                                                                     \
  } while (0)

/* Decode whatever the firmware queued for the link. */
static void drain(void) {
  const uint8_t *bytes = NULL;
  size_t n;
  while ((n = host_tx_peek(&bytes)) > 0) {
    for (size_t i = 0; i < n; i++) {
      const uint8_t *p = NULL;
      size_t len = frame_decoder_push(&dec, bytes[i], &p);
      if (len > 0 && nsent < 128) {
        memcpy(sent[nsent], p, len);
        sent[nsent++][len] = '\0';
      }
    }
    host_tx_consume(n);
  }
}

/* Run the firmware's main loop (sim, then core) up to and including ms `until`. */
static void run_to(uint32_t until) {
  while ((int32_t)(until - clock_ms) >= 0) {
    sim_step(clock_ms);
    proto_poll(clock_ms);
    clock_ms++;
  }
  drain();
}

static void send_json(const char *json) {
  uint8_t wire[FRAME_MAX_WIRE];
  size_t w = frame_encode((const uint8_t *)json, strlen(json), wire, sizeof wire);
  proto_rx(wire, w, clock_ms);
  drain();
}

/* The first frame sent since `from` that contains `needle`, or NULL. */
static const char *find(int from, const char *needle) {
  for (int i = from; i < nsent; i++) {
    if (strstr(sent[i], needle) != NULL) return sent[i];
  }
  return NULL;
}

static int count(int from, const char *needle) {
  int n = 0;
  for (int i = from; i < nsent; i++) n += strstr(sent[i], needle) != NULL;
  return n;
}

static bool all_servos(bool on) {
  for (int i = 0; i < DUCK_JOINTS; i++) {
    if (sim_servo_torque(i) != on) return false;
  }
  return true;
}

static void boot(void) {
  frame_decoder_init(&dec);
  nsent = 0;
  clock_ms = 1000;
  sim_init(&(sim_config_t){8.2f, 0.0f, 0.0f});
  proto_init(&(proto_config_t){.firmware = "test", .board = "sim", .watchdog_ms = 60000u, .boot_id = 1}, clock_ms);
  run_to(1001);
}

static const char on_req[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"torque\",\"params\":{\"on\":true}}";
static const char off_req[] = "{\"jsonrpc\":\"2.0\",\"id\":\"off\",\"method\":\"torque\",\"params\":{\"on\":false}}";

/* Boot confirms torque off too: a reset microcontroller may find its servos still holding. */
static void boot_confirms_torque_off(void) {
  boot();
  CHECK(sim_torque_writes() == 1 && sim_torque_queries() == 1, "boot did not write torque off and read it back");
  CHECK(count(0, "\"method\":\"fault\"") == 0, "a fault at a clean boot");
}

/* Nothing lost: one write, one read-back, and the answer comes once every servo reads off. */
static void torque_off_confirmed_first_time(void) {
  boot();
  send_json(on_req);
  CHECK(all_servos(true), "torque on did not reach the servos");
  uint32_t writes = sim_torque_writes();
  int from = nsent;
  send_json(off_req);
  CHECK(find(from, "\"id\":\"off\"") == NULL, "torque off answered before it was read back");
  run_to(clock_ms);
  const char *r = find(from, "\"id\":\"off\"");
  CHECK(r != NULL && strstr(r, "\"result\":{\"torque\":false,\"attempts\":1}") != NULL, "torque off not confirmed in one write");
  CHECK(sim_torque_writes() == writes + 1u && all_servos(false), "not exactly one torque-off write");
  CHECK(proto_stats()->torque_retries == 0, "a retry when nothing was lost");
}

/* The bus loses the write: the read-back still says on, so the firmware writes again. */
static void torque_off_repeated_when_a_write_is_lost(void) {
  boot();
  send_json(on_req);
  sim_drop_torque_off_writes(2);
  int from = nsent;
  send_json(off_req);
  CHECK(all_servos(true), "the dropped write switched torque off anyway");
  run_to(clock_ms + 5u);
  const char *r = find(from, "\"id\":\"off\"");
  CHECK(r != NULL && strstr(r, "\"result\":{\"torque\":false,\"attempts\":3}") != NULL, "torque off not confirmed on the third write");
  CHECK(all_servos(false), "the servos still hold torque");
  CHECK(proto_stats()->torque_retries == 2 && proto_stats()->torque_unconfirmed == 0, "retries not counted");
  CHECK(count(from, "\"method\":\"fault\"") == 0, "a fault although torque off was confirmed");
  send_json("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"get_state\"}");
  CHECK(find(from, "\"torque_retries\":2") != NULL, "state does not carry torque_retries");
}

/* Every write lost: after torque_attempts (3) writes, an error naming the joints and a fault. */
static void torque_off_reported_when_it_cannot_be_confirmed(void) {
  boot();
  send_json(on_req);
  sim_drop_torque_off_writes(3);
  int from = nsent;
  send_json(off_req);
  run_to(clock_ms + 5u);
  const char *r = find(from, "\"id\":\"off\"");
  CHECK(r != NULL && strstr(r, "\"error\":{\"code\":-32003") != NULL, "no -32003 error for an unconfirmed torque off");
  CHECK(r != NULL && strstr(r, "\"joints\":[\"left_hip_yaw\",") != NULL && strstr(r, "\"right_ankle\"],\"attempts\":3") != NULL,
        "the error does not name every joint and the 3 attempts");
  const char *f = find(from, "\"code\":\"torque_unconfirmed\"");
  CHECK(f != NULL && strstr(f, "\"method\":\"fault\"") != NULL && strstr(f, "\"torque\":false") != NULL, "no torque_unconfirmed fault");
  CHECK(proto_stats()->torque_unconfirmed == 1 && sim_torque_writes() == 2u + 3u, "not exactly 3 writes for the torque off");
  CHECK(all_servos(true), "the simulated bus let a write through");
  /* Bounded: no more writes after giving up; a new request starts over, and now it works. */
  uint32_t writes = sim_torque_writes();
  run_to(clock_ms + 200u);
  CHECK(sim_torque_writes() == writes, "kept writing after giving up");
  from = nsent;
  send_json(off_req);
  run_to(clock_ms);
  r = find(from, "\"id\":\"off\"");
  CHECK(r != NULL && strstr(r, "\"attempts\":1") != NULL && all_servos(false), "a later torque off was not confirmed");
}

/* A servo that never answers: each write waits torque_confirm_ms (20) for it, to the millisecond. */
static void torque_off_waits_for_a_silent_servo(void) {
  boot();
  send_json(on_req);
  sim_silence(1u << 12); /* right_knee */
  int from = nsent;
  uint32_t t0 = clock_ms;
  send_json(off_req);
  uint32_t writes = sim_torque_writes();
  run_to(t0 + 19u);
  CHECK(sim_torque_writes() == writes, "wrote again before the 20 ms read-back window was over");
  run_to(t0 + 20u);
  CHECK(sim_torque_writes() == writes + 1u, "no second write when the window closed");
  run_to(t0 + 39u);
  CHECK(find(from, "\"id\":\"off\"") == NULL, "answered before the third window closed");
  run_to(t0 + 40u);
  CHECK(sim_torque_writes() == writes + 2u, "no third write at 40 ms");
  run_to(t0 + 59u);
  CHECK(find(from, "\"id\":\"off\"") == NULL, "gave up before the third window closed");
  run_to(t0 + 60u);
  const char *r = find(from, "\"id\":\"off\"");
  CHECK(r != NULL && strstr(r, "\"joints\":[\"right_knee\"]") != NULL, "the error does not name just the silent servo");
  CHECK(find(from, "\"code\":\"torque_unconfirmed\"") != NULL, "no fault for the silent servo");
  sim_silence(0);
}

/* The watchdog's torque off is confirmed the same way, with no request to answer. */
static void watchdog_torque_off_is_confirmed(void) {
  frame_decoder_init(&dec);
  nsent = 0;
  clock_ms = 0;
  sim_init(&(sim_config_t){8.2f, 0.0f, 0.0f});
  proto_init(&(proto_config_t){.firmware = "test", .board = "sim", .watchdog_ms = 200u, .boot_id = 1}, clock_ms);
  run_to(1);
  send_json(on_req);
  uint32_t t0 = clock_ms;
  sim_drop_torque_off_writes(1);
  run_to(t0 + 199u);
  CHECK(all_servos(true) && count(0, "\"code\":\"watchdog\"") == 0, "watchdog early");
  run_to(t0 + 200u);
  CHECK(count(0, "\"code\":\"watchdog\"") == 1, "watchdog did not trip at 200 ms");
  CHECK(all_servos(false), "the watchdog's torque off was lost and not repeated");
  CHECK(proto_stats()->torque_retries == 1 && count(0, "torque_unconfirmed\"") == 0, "watchdog torque off not retried once");
}

/* Torque on while a torque off is still unconfirmed: the waiting request hears so. */
static void torque_on_supersedes_an_unconfirmed_off(void) {
  boot();
  send_json(on_req);
  sim_silence(1u << 0);
  int from = nsent;
  send_json(off_req);
  run_to(clock_ms + 5u);
  send_json(on_req);
  const char *r = find(from, "\"id\":\"off\"");
  CHECK(r != NULL && strstr(r, "-32003") != NULL && strstr(r, "switched back on") != NULL, "the waiting torque off was not answered");
  CHECK(find(from, "\"id\":1,\"result\":{\"torque\":true}") != NULL && all_servos(true), "torque on was not applied");
  uint32_t writes = sim_torque_writes();
  run_to(clock_ms + 100u);
  CHECK(sim_torque_writes() == writes && all_servos(true), "the abandoned torque off kept writing");
  sim_silence(0);
}

/* The servos see at most one step (10 rad/s x 20 ms) per tick and end at the goal. */
static void servos_follow_within_the_step_limit(void) {
  boot();
  send_json(on_req);
  float prev = sim_target(3);
  send_json("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"set_targets\",\"params\":{\"pos\":[0,0,0,1.2,0,0,0,0,0,0,0,0,0,0]}}");
  CHECK(find(0, "\"limited\":[") != NULL && find(0, "\"limited\":[]") == NULL, "a 1.2 rad jump was not limited");
  float biggest = 0.0f;
  uint32_t t0 = clock_ms;
  for (uint32_t t = t0; t < t0 + 400u; t++) {
    run_to(t);
    float d = fabsf(sim_target(3) - prev);
    if (d > biggest) biggest = d;
    prev = sim_target(3);
  }
  CHECK(biggest <= 0.2f + 1e-4f, "a servo target moved more than 0.2 rad in one go");
  CHECK(fabsf(sim_target(3) - 1.2f) < 1e-4f, "the servo target did not reach the goal");
  CHECK(fabsf(sim_pos(3) - 1.2f) < 0.01f, "the simulated joint did not follow");
}

/* --tilt-at's steps: a time or USR1, degrees, an optional axis; anything else is refused whole. */
static void tilt_steps_parse(void) {
  tilt_step_t s = {0, false, 0.0f, 0};
  CHECK(tilt_parse("1500:80", &s) == 0 && s.at_ms == 1500u && !s.on_signal && s.deg == 80.0f && s.axis == TILT_PITCH, "1500:80");
  CHECK(tilt_parse("USR1:-90:roll", &s) == 0 && s.on_signal && s.deg == -90.0f && s.axis == TILT_ROLL, "USR1:-90:roll");
  CHECK(tilt_parse("0:0:pitch", &s) == 0 && s.at_ms == 0u && s.deg == 0.0f, "0:0:pitch");
  const char *bad[] = {"", "80", "abc:10", "10:", "10:abc", "10:5x", "10:200", "-5:10", "10:45:yaw", "usr1:10", "USR1", "1e9:10"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    tilt_step_t before = {7u, true, 3.0f, TILT_ROLL}, t = before;
    CHECK(tilt_parse(bad[i], &t) == -1 && memcmp(&t, &before, sizeof t) == 0, bad[i]);
  }
  CHECK(tilt_parse(NULL, &s) == -1, "NULL");
}

static hal_state_t imu(void) {
  hal_state_t st;
  hal_read_state(&st);
  return st;
}

static bool near(float a, float b) { return fabsf(a - b) < 0.01f; }

/*
 * A timed fall: level until its time (boot is the first step of the clock), then tipping at
 * TILT_RATE_DEG_S with the gyro reading that rate, then lying still at the angle, where the
 * accelerometer reads gravity's reaction for the trunk pitched forward; the state frame says so.
 */
static void a_scheduled_fall_tips_the_imu(void) {
  boot(); /* the clock starts at 1000: steps count from there */
  tilt_step_t s;
  CHECK(tilt_parse("200:80", &s) == 0 && tilt_add(&s) == 0, "could not add a step");
  run_to(1199);
  hal_state_t st = imu();
  CHECK(near(st.accel[0], 0.0f) && near(st.accel[1], 0.0f) && near(st.accel[2], 9.81f) && near(st.gyro[1], 0.0f), "not level before the step's time");
  run_to(1250);
  st = imu();
  float deg = tilt_now_deg();
  CHECK(deg > 10.0f && deg < 20.0f, "not tipping at the fall's pace 50 ms in");
  CHECK(near(st.gyro[1], TILT_RATE_DEG_S * 0.017453293f) && near(st.gyro[0], 0.0f), "the gyro did not read the fall's rate");
  run_to(1200u + (uint32_t)(80.0f / TILT_RATE_DEG_S * 1000.0f) + 5u);
  st = imu();
  float want_x = -9.81f * sinf(80.0f * 0.017453293f), want_z = 9.81f * cosf(80.0f * 0.017453293f);
  CHECK(near(tilt_now_deg(), 80.0f) && near(st.accel[0], want_x) && near(st.accel[1], 0.0f) && near(st.accel[2], want_z), "not lying at 80 degrees pitched forward");
  CHECK(near(st.gyro[1], 0.0f), "the gyro still reads a rate on the floor");
  int from = nsent;
  send_json("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"get_state\",\"params\":{}}");
  const char *r = find(from, "\"id\":5");
  CHECK(r != NULL && strstr(r, "\"accel\":[-9.661") != NULL, "the state frame does not carry the tipped accelerometer");
}

/* USR1 steps wait for the signal however long it takes; a signal with no step left is not kept. */
static void signalled_steps_wait_for_the_signal(void) {
  boot();
  tilt_signal(); /* nothing queued: dropped */
  tilt_step_t over, up;
  CHECK(tilt_parse("USR1:90:roll", &over) == 0 && tilt_parse("USR1:0", &up) == 0, "parse");
  run_to(1010);
  tilt_add(&over);
  tilt_add(&up);
  run_to(3000);
  CHECK(near(tilt_now_deg(), 0.0f), "a signal given before the step was queued tipped the duck");
  tilt_signal();
  run_to(3500);
  hal_state_t st = imu();
  CHECK(near(st.accel[0], 0.0f) && near(st.accel[1], 9.81f) && near(st.accel[2], 0.0f), "not lying on its right side after USR1");
  tilt_signal();
  run_to(4000);
  st = imu();
  CHECK(near(st.accel[2], 9.81f) && near(tilt_now_deg(), 0.0f), "not stood up again by the second USR1");
  tilt_signal();
  run_to(4500);
  CHECK(near(tilt_now_deg(), 0.0f), "a signal with no step left moved the trunk");
}

/* Writes one state record as the physics side does; `torn` makes its trailing seq differ. */
static void plant_state(int fd, uint32_t seq, float base, bool torn) {
  uint8_t rec[4 + sizeof(plant_state_t) + 4];
  plant_state_t st;
  for (int i = 0; i < DUCK_JOINTS; i++) {
    st.pos[i] = base + 0.01f * (float)i;
    st.vel[i] = -0.5f;
  }
  const float gyro[3] = {0.0f, 0.0f, 0.5f}, accel[3] = {0.0f, 1.0f, 9.75f};
  memcpy(st.gyro, gyro, sizeof gyro);
  memcpy(st.accel, accel, sizeof accel);
  uint32_t tail = torn ? seq + 1u : seq;
  memcpy(rec, &seq, 4);
  memcpy(rec + 4, &st, sizeof st);
  memcpy(rec + 4 + sizeof st, &tail, 4);
  CHECK(pwrite(fd, rec, sizeof rec, PLANT_STATE_AT) == (ssize_t)sizeof rec, "could not write the plant's state");
}

/* Last: once a plant is open the HAL stays on it. Joints and IMU come from the shared file, goals and torque go to it. */
static void a_plant_steps_the_joints(void) {
  char path[] = "/tmp/quackd-sim-plant-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && ftruncate(fd, PLANT_FILE_BYTES) == 0, "could not make the plant file");
  CHECK(plant_open(path), "plant_open failed");
  sim_init(&(sim_config_t){8.2f, 0.0f, 0.0f});
  clock_ms = 1;
  run_to(5);
  hal_state_t st;
  hal_read_state(&st);
  CHECK(fabsf(st.accel[2] - 9.81f) < 1e-3f && st.gyro[2] == 0.0f, "before the physics steps the trunk reads level and still");
  plant_state(fd, 1, 0.2f, false);
  run_to(10);
  hal_read_state(&st);
  CHECK(fabsf(st.pos[3] - 0.23f) < 1e-6f && st.vel[0] == -0.5f, "the joints are not the plant's");
  CHECK(st.gyro[2] == 0.5f && st.accel[1] == 1.0f && st.accel[2] == 9.75f, "the IMU is not the plant's");
  plant_state(fd, 2, 0.4f, true);
  run_to(15);
  hal_read_state(&st);
  CHECK(fabsf(st.pos[3] - 0.23f) < 1e-6f, "a torn record was taken");

  float goal[DUCK_JOINTS];
  for (int i = 0; i < DUCK_JOINTS; i++) goal[i] = -0.1f * (float)i;
  hal_set_torque(true);
  hal_set_targets(goal);
  uint8_t rec[4 + 4 + 4 * DUCK_JOINTS + 4];
  CHECK(pread(fd, rec, sizeof rec, PLANT_GOALS_AT) == (ssize_t)sizeof rec, "no goals record");
  uint32_t head, mask, tail;
  float got[DUCK_JOINTS];
  memcpy(&head, rec, 4);
  memcpy(&mask, rec + 4, 4);
  memcpy(got, rec + 8, sizeof got);
  memcpy(&tail, rec + 8 + sizeof got, 4);
  CHECK(head != 0 && head == tail, "the goals record is not whole");
  CHECK(mask == DUCK_ALL_JOINTS, "torque on did not reach the plant");
  CHECK(memcmp(got, goal, sizeof got) == 0, "the goals are not the targets");
  hal_set_torque(false);
  CHECK(pread(fd, rec, sizeof rec, PLANT_GOALS_AT) == (ssize_t)sizeof rec, "no goals record");
  memcpy(&mask, rec + 4, 4);
  CHECK(mask == 0, "torque off did not reach the plant");
  close(fd);
  unlink(path);
}

int main(void) {
  boot_confirms_torque_off();
  torque_off_confirmed_first_time();
  torque_off_repeated_when_a_write_is_lost();
  torque_off_reported_when_it_cannot_be_confirmed();
  torque_off_waits_for_a_silent_servo();
  watchdog_torque_off_is_confirmed();
  torque_on_supersedes_an_unconfirmed_off();
  servos_follow_within_the_step_limit();
  tilt_steps_parse();
  a_scheduled_fall_tips_the_imu();
  signalled_steps_wait_for_the_signal();
  a_plant_steps_the_joints();
  printf("sim-test: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
