/*
 * Random-bytes fuzz driver for the frame decoder and the protocol core, built with ASan and UBSan
 * (make fuzz-run). Properties checked, each over many seeded random cases:
 *   1. random bytes: no crash; any accepted frame carries a matching CRC and fits the limit;
 *   2. valid frames with flipped bits, truncation or inserted bytes: nothing but the original
 *      payload is ever accepted, and an unmutated frame is accepted exactly once;
 *   3. overlong frames are dropped and counted, and the decoder resynchronises after them;
 *   4. through the whole core: only an intact set_targets frame applies targets, and applied
 *      targets are always inside the announced limits and within one step (max_vel x tick_ms)
 *      of the previous ones, however the random calls and the poll ticks interleave.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/crc32.h"
#include "../src/frame.h"
#include "../src/proto.h"
#include "fuzz.h"

static uint64_t rng_state;

static uint32_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static int failures;

#define CHECK(cond, ...)                          \
  do {                                            \
    if (!(cond)) {                                \
      fprintf(stderr, "fuzz-frame: FAIL: ");      \
      fprintf(stderr, __VA_ARGS__);               \
      fputc('\n', stderr);                        \
      failures++;                                 \
      return;                                     \
    }                                             \
  } while (0)

static frame_decoder_t dec;
static uint8_t stream[3 * FRAME_MAX_WIRE];

static void random_bytes(void) {
  size_t n = rnd() % sizeof stream;
  for (size_t i = 0; i < n; i++) stream[i] = (rnd() % 16 == 0) ? 0 : (uint8_t)rnd();
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = NULL;
    size_t len = frame_decoder_push(&dec, stream[i], &p);
    if (len == 0) continue;
    CHECK(len <= FRAME_MAX_PAYLOAD, "accepted %zu bytes, over the limit", len);
    uint32_t want = (uint32_t)p[len] | ((uint32_t)p[len + 1] << 8) | ((uint32_t)p[len + 2] << 16) |
                    ((uint32_t)p[len + 3] << 24);
    CHECK(crc32_ieee(p, len) == want, "accepted a frame whose CRC does not match");
  }
}

static void mutated_frames(void) {
  uint8_t payload[FRAME_MAX_PAYLOAD];
  size_t plen = 1u + rnd() % FRAME_MAX_PAYLOAD;
  for (size_t i = 0; i < plen; i++) payload[i] = (uint8_t)rnd();
  size_t w = frame_encode(payload, plen, stream + 1, sizeof stream - 2u);
  CHECK(w > 0, "could not encode a %zu-byte payload", plen);
  stream[0] = 0;
  size_t n = w + 1u;
  int kind = (int)(rnd() % 4);
  if (kind == 1) {
    int flips = 1 + (int)(rnd() % 8);
    for (int f = 0; f < flips; f++) stream[1u + rnd() % (w - 1u)] ^= (uint8_t)(1u << (rnd() % 8));
  } else if (kind == 2) {
    n = 1u + rnd() % (w - 1u); /* truncated: the sender stopped mid-frame */
    stream[n++] = 0;
  } else if (kind == 3) {
    size_t at = 1u + rnd() % (w - 1u);
    size_t extra = 1u + rnd() % 8u;
    memmove(stream + at + extra, stream + at, n - at);
    for (size_t i = 0; i < extra; i++) stream[at + i] = (uint8_t)(1u + rnd() % 255u);
    n += extra;
  }
  int accepted = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *p = NULL;
    size_t len = frame_decoder_push(&dec, stream[i], &p);
    if (len == 0) continue;
    accepted++;
    CHECK(len == plen && memcmp(p, payload, plen) == 0, "accepted a payload that was never sent");
  }
  if (kind == 0) CHECK(accepted == 1, "an intact frame was accepted %d times", accepted);
}

static void overlong(void) {
  size_t n = FRAME_MAX_ENCODED + 1u + rnd() % 64u;
  uint32_t before = dec.count.overlong;
  const uint8_t *p = NULL;
  frame_decoder_push(&dec, 0, &p);
  for (size_t i = 0; i < n; i++) CHECK(frame_decoder_push(&dec, (uint8_t)(1u + rnd() % 255u), &p) == 0, "overlong accepted");
  frame_decoder_push(&dec, 0, &p);
  CHECK(dec.count.overlong == before + 1u, "overlong frame not counted");
  static const char ok[] = "{\"jsonrpc\":\"2.0\",\"method\":\"heartbeat\"}";
  size_t w = frame_encode((const uint8_t *)ok, sizeof ok - 1u, stream, sizeof stream);
  size_t got = 0;
  for (size_t i = 0; i < w; i++) got += frame_decoder_push(&dec, stream[i], &p);
  CHECK(got == sizeof ok - 1u, "no resync after an overlong frame");
}

static void feed(const uint8_t *bytes, size_t n, uint32_t now) { proto_rx(bytes, n, now); }

static void send_json(const char *json, uint32_t now) {
  uint8_t wire[FRAME_MAX_WIRE];
  size_t w = frame_encode((const uint8_t *)json, strlen(json), wire, sizeof wire);
  feed(wire, w, now);
}

static void core(uint32_t now) {
  static const char targets[] =
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"set_targets\",\"params\":{\"pos\":"
      "[0.1,-0.1,0.2,-0.2,0.3,0.1,0.1,0.5,0.1,0.0,0.1,-0.2,0.2,-0.3]}}";
  send_json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"torque\",\"params\":{\"on\":true}}", now);
  CHECK(proto_torque_on(), "torque on was refused");
  uint8_t wire[FRAME_MAX_WIRE];
  size_t w = frame_encode((const uint8_t *)targets, sizeof targets - 1u, wire, sizeof wire);
  /* One flipped bit per chosen byte; several flips on one bit could cancel out. */
  int flips = 1 + (int)(rnd() % 4);
  size_t first = rnd() % (w - 1u);
  for (int f = 0; f < flips; f++) wire[(first + (size_t)f * 7u) % (w - 1u)] ^= (uint8_t)(1u << (rnd() % 8));
  uint32_t before = fuzz_targets_applied, accepted = proto_stats()->targets;
  uint8_t zero = 0;
  feed(&zero, 1, now);
  feed(wire, w, now);
  feed(&zero, 1, now);
  CHECK(fuzz_targets_applied == before, "a corrupted set_targets frame moved a joint");

  /* Garbage JSON with a valid CRC: must be refused or, if it parses, stay within limits. */
  char json[400];
  memcpy(json, targets, sizeof targets);
  size_t jn = sizeof targets - 1u;
  for (int f = 0; f < 1 + (int)(rnd() % 6); f++) {
    static const char alphabet[] = "{}[],:\"-+.eE0123456789 tfnul\\x";
    json[rnd() % jn] = alphabet[rnd() % (sizeof alphabet - 1u)];
  }
  if (rnd() % 4 == 0) jn = rnd() % jn + 1u;
  json[jn] = '\0';
  send_json(json, now);
  CHECK(fuzz_targets_in_limits, "targets outside the limits reached the HAL");
  CHECK(fuzz_targets_in_step, "a target moved further than max_vel x tick_ms at once");
  uint32_t mid = proto_stats()->targets;
  send_json(targets, now);
  CHECK(proto_stats()->targets == mid + 1u && fuzz_targets_applied >= before + 1u, "an intact set_targets was not applied");
  CHECK(mid - accepted <= 1u, "more than the one well-formed call was accepted");
  CHECK(fuzz_targets_in_step, "a target moved further than max_vel x tick_ms at once");
}

int main(int argc, char **argv) {
  unsigned long iterations = 20000, seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--iterations") == 0) iterations = strtoul(argv[i + 1], NULL, 10);
    if (strcmp(argv[i], "--seed") == 0) seed = strtoul(argv[i + 1], NULL, 10);
  }
  rng_state = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
  frame_decoder_init(&dec);
  proto_init(&(proto_config_t){.firmware = "fuzz", .board = "fuzz", .watchdog_ms = PROTO_WATCHDOG_MS, .boot_id = 1}, 0);
  fuzz_step_max = proto_config()->max_vel * (float)proto_config()->tick_ms / 1000.0f;
  for (unsigned long it = 0; it < iterations && failures == 0; it++) {
    random_bytes();
    mutated_frames();
    if (it % 64 == 0) overlong();
    uint32_t now = (uint32_t)it * 7u; /* 7 ms a round: the step limit's ticks fall between calls */
    core(now);
    /* Keep the watchdog fed so torque stays on for the next core() round. */
    send_json("{\"jsonrpc\":\"2.0\",\"method\":\"heartbeat\"}", now);
    for (uint32_t t = now; t < now + 7u; t++) proto_poll(t);
  }
  const frame_counters_t *c = &dec.count;
  const proto_stats_t *s = proto_stats();
  printf("fuzz-frame: %lu iterations, seed %lu: decoder ok %u, crc %u, malformed %u, overlong %u, runt %u;"
         " core targets %u, json errors %u, crc drops %u: %s\n",
         iterations, seed, c->ok, c->crc, c->malformed, c->overlong, c->runt, s->targets, s->json, s->rx.crc,
         failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
