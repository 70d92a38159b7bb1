/*
 * Dispatch of framed JSON-RPC requests to the methods of PROTOCOL.md, plus the watchdog and the
 * state stream. One static instance: a firmware talks to one host.
 */
#include "proto.h"

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

static void begin(jw_t *w) {
  jw_init(w, out_json, sizeof out_json);
  jw_obj(w);
  kv_str(w, "jsonrpc", "2.0");
}

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

static void notify_fault(const char *code, const char *message, uint32_t now) {
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
  jw_obj_end(&w);
  jw_obj_end(&w);
  send(&w);
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
  float apply[DUCK_JOINTS];
  size_t count = 0;
  bool strict = false;
  js_t v;
  (void)now;
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
  bool clamped[DUCK_JOINTS];
  for (int i = 0; i < DUCK_JOINTS; i++) {
    double lo = duck_lower[i], hi = duck_upper[i];
    clamped[i] = want[i] < lo || want[i] > hi;
    if (clamped[i] && strict) {
      *err = (rpc_err_t){ERR_OUT_OF_LIMIT, "target outside the joint's limits", i};
      return false;
    }
    apply[i] = (float)(want[i] < lo ? lo : want[i] > hi ? hi : want[i]);
  }
  hal_set_targets(apply);
  stats.targets++;
  jw_obj(w);
  jw_key(w, "clamped");
  jw_arr(w);
  for (int i = 0; i < DUCK_JOINTS; i++) {
    if (clamped[i]) jw_uint(w, (uint32_t)i);
  }
  jw_arr_end(w);
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
  if (on && !torque) hal_hold(); /* hold the pose it finds: switching torque on never moves a joint by itself */
  if (on) last_heartbeat = now; /* PROTOCOL.md: torque on counts as a heartbeat, whatever the state */
  torque = on;
  hal_set_torque(on);
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
    if (!methods[m].fn(params, &w, now, &err)) {
      if (has_id) reply_error(id, true, &err);
      return;
    }
    jw_obj_end(&w);
    if (has_id) send(&w);
    return;
  }
  err = (rpc_err_t){ERR_METHOD_NOT_FOUND, "method not found", -1};
  if (has_id) reply_error(id, true, &err);
}

void proto_init(const proto_config_t *config, uint32_t now_ms) {
  cfg = *config;
  if (cfg.state_hz > 500u) cfg.state_hz = 500u;
  memset(&stats, 0, sizeof stats);
  frame_decoder_init(&decoder);
  torque = false;
  battery_fault = false;
  last_heartbeat = now_ms;
  next_state = now_ms;
  seq = 0;
  hal_set_torque(false);
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
  if (torque && (uint32_t)(now_ms - last_heartbeat) > cfg.watchdog_ms) {
    torque = false;
    hal_set_torque(false);
    notify_fault("watchdog", "no heartbeat within the watchdog period: torque off", now_ms);
  }
  if (cfg.state_hz == 0 || (int32_t)(now_ms - next_state) < 0) return;
  uint32_t period = 1000u / cfg.state_hz;
  next_state = (int32_t)(now_ms - next_state) > (int32_t)(4u * period) ? now_ms + period : next_state + period;
  hal_state_t st;
  hal_read_state(&st);
  if (st.battery_v < 6.4f && !battery_fault) {
    battery_fault = true;
    notify_fault("battery_low", "battery below 6.4 V", now_ms);
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
