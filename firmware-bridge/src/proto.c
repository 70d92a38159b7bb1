/*
 * Dispatch of framed JSON-RPC requests to the methods of PROTOCOL.md, plus the watchdog and the
 * state stream. One static instance: a firmware talks to one host.
 */
#include "proto.h"

#include <math.h>
#include <string.h>

#include "duck.h"
#include "hal.h"
#include "json.h"

typedef struct {
  int code;
  const char *message;
  int joint; /* >= 0: the error's data names this joint */
} rpc_err_t;

typedef bool (*method_fn)(js_t params, jw_t *w, uint32_t now, rpc_err_t *err);

static proto_config_t cfg;
static proto_stats_t stats;
static frame_decoder_t decoder;
static bool torque;
static uint32_t last_heartbeat;
static uint32_t next_state;
static uint32_t seq;
static bool battery_fault;
static char out_json[FRAME_MAX_PAYLOAD];
static uint8_t out_wire[FRAME_MAX_WIRE];

/* The request being dispatched, so a method can answer it later instead (torque off). */
static js_t cur_id;
static bool cur_has_id;
static bool cur_deferred;

/*
 * The step limit. goal is the last set_targets (clamped); cmd is what the servos were last told.
 * Each joint has an allowance that refills at max_vel, up to STEP_BURST steps: one move of cmd
 * spends it and is never more than one step (max_vel x tick_ms), so a target never jumps further
 * than a step, and over time no joint is driven faster than max_vel. The slack above one step
 * absorbs a host's jitter (a set_targets 5 ms early is not cut short). A goal further than that is
 * approached one step per tick by proto_poll, and reported as limited.
 */
#define STEP_BURST 1.5f
#define STEP_EPS 1e-5f /* float rounding of a step the host computed exactly */
static float goal[DUCK_JOINTS], cmd[DUCK_JOINTS], allowance[DUCK_JOINTS];
static float step_max;
static uint32_t refilled_at, last_target_at;
static bool slewing;

/*
 * Torque off, confirmed: write it, read torque enable back from every servo, write again while a
 * servo still reads on (or stays silent for torque_confirm_ms), at most torque_attempts writes.
 * Requests for torque off are answered when it is confirmed, or with an error when it is not.
 */
#define TORQUE_WAITERS 4
static struct {
  bool active;
  uint32_t attempt;
  uint32_t since;
  uint32_t off; /* joints that answered torque disabled to the last read-back */
  size_t waiters;
  struct {
    char id[41];
    size_t n;
  } waiter[TORQUE_WAITERS];
} confirm;

static void send(const jw_t *w) {
  if (w->overflow) {
    stats.tx_dropped++;
    return;
  }
  size_t n = frame_encode((const uint8_t *)w->buf, w->len, out_wire, sizeof out_wire);
  if (n == 0 || !hal_write(out_wire, n)) stats.tx_dropped++;
}

static void kv_uint(jw_t *w, const char *key, uint32_t v) {
  jw_key(w, key);
  jw_uint(w, v);
}

static void kv_bool(jw_t *w, const char *key, bool v) {
  jw_key(w, key);
  jw_bool(w, v);
}

static void kv_str(jw_t *w, const char *key, const char *v) {
  jw_key(w, key);
  jw_str(w, v);
}

static void begin_in(jw_t *w, char *buf, size_t cap) {
  jw_init(w, buf, cap);
  jw_obj(w);
  kv_str(w, "jsonrpc", "2.0");
}

static void begin(jw_t *w) { begin_in(w, out_json, sizeof out_json); }

static void write_floats(jw_t *w, const char *key, const float *v, size_t n) {
  jw_key(w, key);
  jw_arr(w);
  for (size_t i = 0; i < n; i++) jw_num(w, v[i]);
  jw_arr_end(w);
}

static void write_state(jw_t *w, uint32_t now) {
  hal_state_t st;
  hal_read_state(&st);
  jw_obj(w);
  kv_uint(w, "seq", seq++);
  kv_uint(w, "t", now);
  kv_bool(w, "torque", torque);
  write_floats(w, "pos", st.pos, DUCK_JOINTS);
  write_floats(w, "vel", st.vel, DUCK_JOINTS);
  write_floats(w, "gyro", st.gyro, 3);
  write_floats(w, "accel", st.accel, 3);
  jw_key(w, "contacts");
  jw_arr(w);
  jw_bool(w, st.contact[0]);
  jw_bool(w, st.contact[1]);
  jw_arr_end(w);
  jw_key(w, "battery_v");
  jw_num(w, st.battery_v);
  kv_uint(w, "quacks", stats.quacks);
  kv_uint(w, "targets", stats.targets);
  kv_uint(w, "limited", stats.limited);
  kv_uint(w, "torque_retries", stats.torque_retries);
  kv_uint(w, "torque_unconfirmed", stats.torque_unconfirmed);
  jw_key(w, "rx");
  jw_obj(w);
  kv_uint(w, "ok", stats.rx.ok);
  kv_uint(w, "crc", stats.rx.crc);
  kv_uint(w, "malformed", stats.rx.malformed);
  kv_uint(w, "overlong", stats.rx.overlong);
  kv_uint(w, "runt", stats.rx.runt);
  kv_uint(w, "json", stats.json);
  jw_obj_end(w);
  kv_uint(w, "tx_dropped", stats.tx_dropped);
  jw_obj_end(w);
}

static void write_joint_names(jw_t *w, const char *key, uint32_t mask) {
  jw_key(w, key);
  jw_arr(w);
  for (int i = 0; i < DUCK_JOINTS; i++) {
    if (mask & (1u << i)) jw_str(w, duck_joint_names[i]);
  }
  jw_arr_end(w);
}

static void write_indices(jw_t *w, const char *key, uint32_t mask) {
  jw_key(w, key);
  jw_arr(w);
  for (int i = 0; i < DUCK_JOINTS; i++) {
    if (mask & (1u << i)) jw_uint(w, (uint32_t)i);
  }
  jw_arr_end(w);
}

/* joints: for a fault about particular servos, which (0: none named). */
static void notify_fault(const char *code, const char *message, uint32_t now, uint32_t joints) {
  jw_t w;
  stats.faults++;
  begin(&w);
  kv_str(&w, "method", "fault");
  jw_key(&w, "params");
  jw_obj(&w);
  kv_str(&w, "code", code);
  kv_str(&w, "message", message);
  kv_uint(&w, "t", now);
  kv_bool(&w, "torque", torque);
  if (joints != 0) write_joint_names(&w, "joints", joints);
  jw_obj_end(&w);
  jw_obj_end(&w);
  send(&w);
}

static float clampf(float v, int i) {
  if (!isfinite(v)) return duck_home[i];
  return v < duck_lower[i] ? duck_lower[i] : v > duck_upper[i] ? duck_upper[i] : v;
}

static void refill(uint32_t now) {
  float add = cfg.max_vel * (float)(uint32_t)(now - refilled_at) / 1000.0f;
  float cap = STEP_BURST * step_max;
  refilled_at = now;
  for (int i = 0; i < DUCK_JOINTS; i++) {
    float a = allowance[i] + add;
    allowance[i] = a < cap ? a : cap;
  }
}

/* Move cmd towards goal within the step limit and send it; returns the joints cut short. */
static uint32_t step_toward_goal(uint32_t now, bool always_send) {
  uint32_t cut = 0;
  bool moved = false;
  refill(now);
  for (int i = 0; i < DUCK_JOINTS; i++) {
    float d = goal[i] - cmd[i];
    float lim = allowance[i] < step_max ? allowance[i] : step_max;
    float next = goal[i];
    if (fabsf(d) > lim + STEP_EPS) {
      next = cmd[i] + (d > 0.0f ? lim : -lim);
      cut |= 1u << i;
    }
    float used = fabsf(next - cmd[i]);
    allowance[i] = allowance[i] > used ? allowance[i] - used : 0.0f;
    moved = moved || next != cmd[i];
    cmd[i] = next;
  }
  if (moved || always_send) {
    hal_set_targets(cmd);
    last_target_at = now;
  }
  slewing = cut != 0;
  return cut;
}

/* Torque on holds the pose it finds: that pose is where the step limit starts from. */
static void hold_pose(uint32_t now) {
  hal_state_t st;
  hal_read_state(&st);
  for (int i = 0; i < DUCK_JOINTS; i++) {
    cmd[i] = goal[i] = clampf(st.pos[i], i);
    allowance[i] = STEP_BURST * step_max;
  }
  refilled_at = last_target_at = now;
  slewing = false;
  hal_hold();
}

/* May run inside a method (torque on), while out_json holds that method's answer: its own buffer. */
static void reply_waiters(bool ok, const char *message, uint32_t unconfirmed) {
  static char json[512];
  for (size_t k = 0; k < confirm.waiters; k++) {
    jw_t w;
    begin_in(&w, json, sizeof json);
    jw_key(&w, "id");
    jw_raw(&w, confirm.waiter[k].id, confirm.waiter[k].n);
    if (ok) {
      jw_key(&w, "result");
      jw_obj(&w);
      kv_bool(&w, "torque", false);
      kv_uint(&w, "attempts", confirm.attempt);
      jw_obj_end(&w);
    } else {
      jw_key(&w, "error");
      jw_obj(&w);
      jw_key(&w, "code");
      jw_int(&w, ERR_TORQUE_UNCONFIRMED);
      kv_str(&w, "message", message);
      jw_key(&w, "data");
      jw_obj(&w);
      write_joint_names(&w, "joints", unconfirmed);
      kv_uint(&w, "attempts", confirm.attempt);
      jw_obj_end(&w);
      jw_obj_end(&w);
    }
    jw_obj_end(&w);
    send(&w);
  }
  confirm.waiters = 0;
}

static void torque_off_start(uint32_t now) {
  if (confirm.active) return; /* already writing and reading back: this request waits with the others */
  confirm.active = true;
  confirm.attempt = 1;
  confirm.since = now;
  confirm.off = 0;
  hal_set_torque(false);
  hal_torque_query();
}

static void torque_off_poll(uint32_t now) {
  if (!confirm.active) return;
  uint32_t off = 0;
  bool complete = hal_torque_readback(&off);
  confirm.off = off & DUCK_ALL_JOINTS;
  if (complete && confirm.off == DUCK_ALL_JOINTS) {
    confirm.active = false;
    reply_waiters(true, NULL, 0);
    return;
  }
  /* A servo that answered "on" lost the write: repeat it now. One that is silent gets the window. */
  if (!complete && (uint32_t)(now - confirm.since) < cfg.torque_confirm_ms) return;
  if (confirm.attempt < cfg.torque_attempts) {
    confirm.attempt++;
    confirm.since = now;
    stats.torque_retries++;
    hal_set_torque(false);
    hal_torque_query();
    return;
  }
  confirm.active = false;
  stats.torque_unconfirmed++;
  uint32_t unconfirmed = DUCK_ALL_JOINTS & ~confirm.off;
  static const char why[] = "torque off not confirmed: a servo still reads torque on, or does not answer";
  reply_waiters(false, why, unconfirmed);
  notify_fault("torque_unconfirmed", why, now, unconfirmed);
}

static bool m_hello(js_t params, jw_t *w, uint32_t now, rpc_err_t *err) {
  (void)params, (void)now, (void)err;
  jw_obj(w);
  kv_uint(w, "protocol", PROTO_VERSION);
  kv_str(w, "firmware", cfg.firmware);
  kv_str(w, "board", cfg.board);
  kv_uint(w, "boot", cfg.boot_id);
  jw_key(w, "joints");
  jw_arr(w);
  for (size_t i = 0; i < DUCK_JOINTS; i++) jw_str(w, duck_joint_names[i]);
  jw_arr_end(w);
  write_floats(w, "lower", duck_lower, DUCK_JOINTS);
  write_floats(w, "upper", duck_upper, DUCK_JOINTS);
  kv_uint(w, "state_hz", cfg.state_hz);
  kv_uint(w, "watchdog_ms", cfg.watchdog_ms);
  kv_uint(w, "max_payload", FRAME_MAX_PAYLOAD);
  jw_key(w, "max_vel");
  jw_arr(w);
  for (size_t i = 0; i < DUCK_JOINTS; i++) jw_num(w, cfg.max_vel);
  jw_arr_end(w);
  kv_uint(w, "tick_ms", cfg.tick_ms);
  jw_obj_end(w);
  return true;
}

static bool m_get_state(js_t params, jw_t *w, uint32_t now, rpc_err_t *err) {
  (void)params, (void)err;
  write_state(w, now);
  return true;
}

static bool m_set_targets(js_t params, jw_t *w, uint32_t now, rpc_err_t *err) {
  double want[DUCK_JOINTS];
  size_t count = 0;
  bool strict = false;
  js_t v;
  if (js_get(params, "pos", &v) != 0 || js_numbers(v, want, DUCK_JOINTS, &count) != 0 ||
      count != DUCK_JOINTS) {
    *err = (rpc_err_t){ERR_BAD_PARAMS, "pos must be an array of 14 finite numbers (rad)", -1};
    return false;
  }
  if (js_get(params, "strict", &v) == 0 && js_bool(v, &strict) != 0) {
    *err = (rpc_err_t){ERR_BAD_PARAMS, "strict must be true or false", -1};
    return false;
  }
  if (!torque) {
    *err = (rpc_err_t){ERR_TORQUE_OFF, "torque is off: send torque {\"on\":true} first", -1};
    return false;
  }
  /* Validate everything before applying anything: a refused call changes nothing. */
  float apply[DUCK_JOINTS];
  uint32_t clamped = 0;
  for (int i = 0; i < DUCK_JOINTS; i++) {
    double lo = duck_lower[i], hi = duck_upper[i];
    if (want[i] < lo || want[i] > hi) {
      if (strict) {
        *err = (rpc_err_t){ERR_OUT_OF_LIMIT, "target outside the joint's limits", i};
        return false;
      }
      clamped |= 1u << i;
    }
    apply[i] = (float)(want[i] < lo ? lo : want[i] > hi ? hi : want[i]);
  }
  memcpy(goal, apply, sizeof goal);
  /* Sent even when unchanged: a goal write the bus lost is repaired by the next call. */
  uint32_t limited = step_toward_goal(now, true);
  stats.targets++;
  if (limited != 0) stats.limited++;
  jw_obj(w);
  write_indices(w, "clamped", clamped);
  write_indices(w, "limited", limited);
  jw_obj_end(w);
  return true;
}

static bool m_torque(js_t params, jw_t *w, uint32_t now, rpc_err_t *err) {
  js_t v;
  bool on = false;
  if (js_get(params, "on", &v) != 0 || js_bool(v, &on) != 0) {
    *err = (rpc_err_t){ERR_BAD_PARAMS, "on must be true or false", -1};
    return false;
  }
  if (!on) {
    torque = false;
    torque_off_start(now);
    if (!cur_has_id) return true; /* a notification: confirmed (or reported) all the same */
    if (confirm.waiters == TORQUE_WAITERS) {
      *err = (rpc_err_t){ERR_TORQUE_UNCONFIRMED, "torque off is being confirmed for 4 requests already", -1};
      return false;
    }
    /* Answered by torque_off_poll once every servo reads torque off, or with an error. */
    memcpy(confirm.waiter[confirm.waiters].id, cur_id.p, cur_id.n);
    confirm.waiter[confirm.waiters++].n = cur_id.n;
    cur_deferred = true;
    return true;
  }
  if (confirm.active) {
    confirm.active = false;
    reply_waiters(false, "torque switched back on before every servo confirmed it off", DUCK_ALL_JOINTS & ~confirm.off);
  }
  if (!torque) hold_pose(now); /* switching torque on never moves a joint by itself */
  last_heartbeat = now;        /* PROTOCOL.md: torque on counts as a heartbeat, whatever the state */
  torque = true;
  hal_set_torque(true);
  jw_obj(w);
  kv_bool(w, "torque", torque);
  jw_obj_end(w);
  return true;
}

static bool m_quack(js_t params, jw_t *w, uint32_t now, rpc_err_t *err) {
  (void)params, (void)now, (void)err;
  hal_quack();
  stats.quacks++;
  jw_obj(w);
  kv_uint(w, "quacks", stats.quacks);
  jw_obj_end(w);
  return true;
}

static bool m_heartbeat(js_t params, jw_t *w, uint32_t now, rpc_err_t *err) {
  (void)params, (void)err;
  last_heartbeat = now;
  jw_obj(w);
  kv_uint(w, "t", now);
  jw_obj_end(w);
  return true;
}

static const struct {
  const char *name;
  method_fn fn;
} methods[] = {
    {"hello", m_hello},   {"get_state", m_get_state}, {"set_targets", m_set_targets},
    {"torque", m_torque}, {"quack", m_quack},         {"heartbeat", m_heartbeat},
};

static void reply_error(js_t id, bool has_id, const rpc_err_t *e) {
  jw_t w;
  begin(&w);
  jw_key(&w, "id");
  if (has_id) {
    jw_raw(&w, id.p, id.n);
  } else {
    jw_raw(&w, "null", 4);
  }
  jw_key(&w, "error");
  jw_obj(&w);
  jw_key(&w, "code");
  jw_int(&w, e->code);
  kv_str(&w, "message", e->message);
  if (e->joint >= 0 && e->joint < DUCK_JOINTS) {
    jw_key(&w, "data");
    jw_obj(&w);
    kv_str(&w, "joint", duck_joint_names[e->joint]);
    jw_key(&w, "lower");
    jw_num(&w, duck_lower[e->joint]);
    jw_key(&w, "upper");
    jw_num(&w, duck_upper[e->joint]);
    jw_obj_end(&w);
  }
  jw_obj_end(&w);
  jw_obj_end(&w);
  send(&w);
}

static void dispatch(const uint8_t *payload, size_t len, uint32_t now) {
  js_t doc = {(const char *)payload, len};
  js_t id = {"null", 4}, method, params = {"{}", 2};
  bool has_id = false;
  rpc_err_t err = {ERR_INVALID_REQUEST, "invalid request", -1};
  if (js_validate(doc) != 0) {
    stats.json++;
    err = (rpc_err_t){ERR_PARSE, "parse error", -1};
    reply_error(id, false, &err);
    return;
  }
  if (js_get(doc, "id", &id) == 0) {
    /* Echoed verbatim, so it must be a short number or string (JSON-RPC forbids null ids). */
    has_id = (js_is_number(id) || js_is_string(id)) && id.n <= 40;
    if (!has_id) {
      stats.json++;
      reply_error(id, false, &err);
      return;
    }
  }
  js_t version;
  if (!js_is_object(doc) || js_get(doc, "jsonrpc", &version) != 0 || !js_str_eq(version, "2.0") ||
      js_get(doc, "method", &method) != 0 || !js_is_string(method)) {
    stats.json++;
    reply_error(id, has_id, &err);
    return;
  }
  if (js_get(doc, "params", &params) == 0 && !js_is_object(params)) {
    err = (rpc_err_t){ERR_BAD_PARAMS, "params must be an object", -1};
    reply_error(id, has_id, &err);
    return;
  }
  for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
    if (!js_str_eq(method, methods[m].name)) continue;
    jw_t w;
    begin(&w);
    jw_key(&w, "id");
    jw_raw(&w, id.p, id.n);
    jw_key(&w, "result");
    cur_id = id;
    cur_has_id = has_id;
    cur_deferred = false;
    if (!methods[m].fn(params, &w, now, &err)) {
      if (has_id) reply_error(id, true, &err);
      return;
    }
    jw_obj_end(&w);
    if (has_id && !cur_deferred) send(&w);
    return;
  }
  err = (rpc_err_t){ERR_METHOD_NOT_FOUND, "method not found", -1};
  if (has_id) reply_error(id, true, &err);
}

void proto_init(const proto_config_t *config, uint32_t now_ms) {
  cfg = *config;
  if (cfg.state_hz > 500u) cfg.state_hz = 500u;
  if (!(cfg.max_vel > 0.0f && cfg.max_vel <= 1000.0f)) cfg.max_vel = PROTO_MAX_VEL;
  if (cfg.tick_ms == 0u || cfg.tick_ms > 1000u) cfg.tick_ms = PROTO_TICK_MS;
  if (cfg.torque_attempts == 0u || cfg.torque_attempts > 100u) cfg.torque_attempts = PROTO_TORQUE_ATTEMPTS;
  if (cfg.torque_confirm_ms == 0u || cfg.torque_confirm_ms > 10000u) cfg.torque_confirm_ms = PROTO_TORQUE_CONFIRM_MS;
  step_max = cfg.max_vel * (float)cfg.tick_ms / 1000.0f;
  memset(&stats, 0, sizeof stats);
  memset(&confirm, 0, sizeof confirm);
  frame_decoder_init(&decoder);
  torque = false;
  battery_fault = false;
  last_heartbeat = now_ms;
  next_state = now_ms;
  seq = 0;
  memcpy(goal, duck_home, sizeof goal);
  memcpy(cmd, duck_home, sizeof cmd);
  slewing = false;
  torque_off_start(now_ms);
}

void proto_rx(const uint8_t *bytes, size_t len, uint32_t now_ms) {
  for (size_t i = 0; i < len; i++) {
    const uint8_t *payload = NULL;
    size_t n = frame_decoder_push(&decoder, bytes[i], &payload);
    stats.rx = decoder.count;
    if (n > 0) dispatch(payload, n, now_ms);
  }
}

void proto_poll(uint32_t now_ms) {
  /* Trips when watchdog_ms have passed, not at the first poll after: >=, not >. */
  if (torque && (uint32_t)(now_ms - last_heartbeat) >= cfg.watchdog_ms) {
    torque = false;
    torque_off_start(now_ms);
    notify_fault("watchdog", "no heartbeat within the watchdog period: torque off", now_ms, 0);
  }
  torque_off_poll(now_ms);
  if (torque && slewing && (uint32_t)(now_ms - last_target_at) >= cfg.tick_ms) step_toward_goal(now_ms, false);
  if (cfg.state_hz == 0 || (int32_t)(now_ms - next_state) < 0) return;
  uint32_t period = 1000u / cfg.state_hz;
  next_state = (int32_t)(now_ms - next_state) > (int32_t)(4u * period) ? now_ms + period : next_state + period;
  hal_state_t st;
  hal_read_state(&st);
  if (st.battery_v < 6.4f && !battery_fault) {
    battery_fault = true;
    notify_fault("battery_low", "battery below 6.4 V", now_ms, 0);
  } else if (st.battery_v > 6.6f) {
    battery_fault = false;
  }
  jw_t w;
  begin(&w);
  kv_str(&w, "method", "state");
  jw_key(&w, "params");
  write_state(&w, now_ms);
  jw_obj_end(&w);
  send(&w);
}

const proto_stats_t *proto_stats(void) { return &stats; }
bool proto_torque_on(void) { return torque; }
const proto_config_t *proto_config(void) { return &cfg; }
