/*
 * The RP2040 HAL's board-free parts on the host (make check): the receive ring the UART
 * interrupts fill, the servo-bus scheduler that keeps writes off the bus while replies are due,
 * and the Dynamixel packets. Built with ASan and UBSan like the other tests.
 */
#include <stdio.h>
#include <string.h>

#include "../hal/rp2040/bus.h"
#include "../hal/rp2040/dynamixel.h"
#include "../hal/rp2040/ring.h"

static int failures;

#define CHECK(cond, what)                                                    \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "rp2040-test: FAIL: %s (line %d)\n", what, __LINE__); \
      failures++;                                                            \
    }                                                                        \
  } while (0)

/* ---- ring ---- */

static void ring_keeps_order_and_counts_overflow(void) {
  static volatile uint8_t store[16];
  ring_t r;
  ring_init(&r, store, sizeof store);
  for (int i = 0; i < 16; i++) CHECK(ring_push(&r, (uint8_t)i), "a push into a ring with room failed");
  CHECK(!ring_push(&r, 99) && r.dropped == 1 && ring_count(&r) == 16, "a full ring took a byte or did not count it");
  uint8_t out[32];
  CHECK(ring_pop(&r, out, 5) == 5 && out[0] == 0 && out[4] == 4, "pop did not return the oldest bytes");
  CHECK(ring_pop(&r, out, sizeof out) == 11 && out[0] == 5 && out[10] == 15, "pop lost or reordered bytes");
  CHECK(ring_pop(&r, out, sizeof out) == 0, "an empty ring returned bytes");
}

/* Free-running indices: the 2^32 wrap changes nothing. */
static void ring_across_the_index_wrap(void) {
  static volatile uint8_t store[8];
  ring_t r;
  ring_init(&r, store, sizeof store);
  r.head = r.tail = 0xFFFFFFFCu;
  for (int i = 0; i < 8; i++) ring_push(&r, (uint8_t)(10 + i));
  CHECK(ring_count(&r) == 8 && !ring_push(&r, 0), "fill wrong across the index wrap");
  uint8_t out[8];
  size_t n = ring_pop(&r, out, sizeof out);
  CHECK(n == 8 && out[0] == 10 && out[7] == 17 && r.tail == 4u, "bytes wrong across the index wrap");
}

/*
 * What the ring is for: a blocking bus write of 0.8 ms while the host streams at 1 Mbaud (a byte
 * every 10 us) and the interrupt moves each byte out of the 32-byte FIFO. Polling the FIFO after
 * the write would lose what did not fit; the ring loses nothing.
 */
static void ring_absorbs_a_blocking_write(void) {
  static volatile uint8_t store[2048];
  ring_t r;
  ring_init(&r, store, sizeof store);
  unsigned fifo = 0, fifo_lost = 0;
  for (uint8_t b = 0; b < 80; b++) { /* 800 us of bytes */
    ring_push(&r, b);                /* the interrupt's view */
    if (fifo < 32) fifo++; else fifo_lost++; /* the polled FIFO's view */
  }
  CHECK(fifo_lost == 48, "the model of the polled FIFO is off");
  uint8_t out[128];
  CHECK(ring_pop(&r, out, sizeof out) == 80 && r.dropped == 0 && out[79] == 79, "the ring lost bytes during the write");
}

/* ---- bus scheduler ---- */

static bus_t bus;
static const bus_timing_t timing = {10u, 500u, 20u}; /* 1 Mbaud, factory return delay, 20 us guard */

static void bus_holds_writes_while_replies_are_due(void) {
  bus_init(&bus, &timing);
  bus_request(&bus, BUS_POS_READ, false);
  CHECK(bus_next(&bus, 1000) == BUS_POS_READ, "an idle bus did not send the pending read");
  bus_sent(&bus, BUS_POS_READ, 1200, 14, DXL_STATUS_BYTES(4));
  /* 14 replies x (500 us + 15 bytes x 10 us) + 20 us guard = 9120 us */
  bus_request(&bus, BUS_GOAL, false);
  CHECK(bus_next(&bus, 1201) == BUS_NONE, "a goal write started right after a read");
  CHECK(bus_next(&bus, 1200 + 9119) == BUS_NONE, "a goal write started inside the reply window");
  CHECK(bus_held(&bus, 1200 + 9119), "the bus was not held to the end of the window");
  CHECK(bus_next(&bus, 1200 + 9120) == BUS_GOAL, "the goal write did not go when the window closed");
  CHECK(bus.missing == 14 && bus.held >= 2, "silent servos not counted as missing replies");
}

static void bus_frees_early_when_every_reply_is_in(void) {
  bus_init(&bus, &timing);
  bus_request(&bus, BUS_TORQUE_READ, false);
  CHECK(bus_next(&bus, 0) == BUS_TORQUE_READ, "torque read not sent");
  bus_sent(&bus, BUS_TORQUE_READ, 100, 14, DXL_STATUS_BYTES(1));
  bus_request(&bus, BUS_GOAL, false);
  for (int i = 0; i < 13; i++) bus_reply(&bus, BUS_TORQUE_READ, 200u + 120u * (uint32_t)i);
  CHECK(bus_next(&bus, 2000) == BUS_NONE, "a write started with one reply still due");
  bus_reply(&bus, BUS_POS_READ, 2000); /* a late reply of another kind does not count */
  CHECK(bus_next(&bus, 2001) == BUS_NONE, "a reply of another kind closed the window");
  bus_reply(&bus, BUS_TORQUE_READ, 2100);
  CHECK(bus_next(&bus, 2119) == BUS_NONE, "a write started inside the turnaround guard");
  CHECK(bus_next(&bus, 2120) == BUS_GOAL, "the write did not go once every reply was in");
  CHECK(bus.replies == 14 && bus.missing == 0, "replies miscounted");
  bus_reply(&bus, BUS_TORQUE_READ, 2200); /* a stray reply with nothing due */
  CHECK(bus.replies == 14, "a reply counted with nothing due");
}

/* Newer requests of a kind refresh the pending one; order is first-asked, but torque off jumps the queue. */
static void bus_orders_and_coalesces(void) {
  bus_init(&bus, &timing);
  bus_request(&bus, BUS_POS_READ, false);
  bus_request(&bus, BUS_GOAL, false);
  bus_request(&bus, BUS_GOAL, false);
  bus_request(&bus, BUS_TORQUE, false); /* torque on: after the goal it must hold */
  CHECK(bus_next(&bus, 0) == BUS_POS_READ, "not first-asked first");
  bus_sent(&bus, BUS_POS_READ, 0, 0, 0);
  CHECK(bus_next(&bus, 20) == BUS_GOAL, "goal not before torque on");
  bus_sent(&bus, BUS_GOAL, 20, 0, 0);
  CHECK(bus_next(&bus, 40) == BUS_TORQUE, "torque on not sent");
  bus_sent(&bus, BUS_TORQUE, 40, 0, 0);
  CHECK(bus_next(&bus, 60) == BUS_NONE && bus.sent[BUS_GOAL] == 1, "two goal requests sent twice");

  bus_request(&bus, BUS_POS_READ, false);
  bus_request(&bus, BUS_GOAL, false);
  bus_request(&bus, BUS_TORQUE, true); /* torque off */
  bus_request(&bus, BUS_TORQUE_READ, false);
  CHECK(bus_next(&bus, 100) == BUS_TORQUE, "torque off did not jump the queue");
  bus_sent(&bus, BUS_TORQUE, 100, 0, 0);
  CHECK(bus_next(&bus, 120) == BUS_POS_READ, "the rest not in order after torque off");
  bus_sent(&bus, BUS_POS_READ, 120, 14, DXL_STATUS_BYTES(4));
  bus_request(&bus, BUS_TORQUE, true); /* even a torque off waits for the replies on the wire */
  CHECK(bus_next(&bus, 200) == BUS_NONE, "torque off collided with replies");
  for (int i = 0; i < 14; i++) bus_reply(&bus, BUS_POS_READ, 300);
  CHECK(bus_next(&bus, 320) == BUS_TORQUE, "torque off not first once the bus was free");
}

/* The microsecond clock wraps every 71.6 minutes. */
static void bus_across_the_clock_wrap(void) {
  bus_init(&bus, &timing);
  uint32_t t = 0xFFFFFF00u;
  bus_request(&bus, BUS_POS_READ, false);
  bus_next(&bus, t);
  bus_sent(&bus, BUS_POS_READ, t, 14, DXL_STATUS_BYTES(4));
  bus_request(&bus, BUS_GOAL, false);
  CHECK(bus_next(&bus, t + 9119u) == BUS_NONE, "the window ended early across the clock wrap");
  CHECK(bus_next(&bus, t + 9120u) == BUS_GOAL, "the window never ended across the clock wrap");
}

/* ---- Dynamixel packets ---- */

/* ROBOTIS e-Manual, Protocol 2.0: the ping example, FF FF FD 00 01 03 00 01 | CRC 19 4E. */
static void dxl_crc_matches_the_manual(void) {
  static const uint8_t ping[] = {0xFF, 0xFF, 0xFD, 0x00, 0x01, 0x03, 0x00, 0x01};
  CHECK(dxl_crc16(ping, sizeof ping) == 0x4E19, "CRC-16 of the manual's ping packet");
}

static size_t status(uint8_t id, uint8_t err, const uint8_t *data, size_t n, uint8_t *out) {
  size_t len = 4 + n; /* instruction, error, data, CRC */
  uint8_t p[] = {0xFF, 0xFF, 0xFD, 0x00, id, (uint8_t)len, (uint8_t)(len >> 8), 0x55, err};
  memcpy(out, p, sizeof p);
  memcpy(out + sizeof p, data, n);
  uint16_t crc = dxl_crc16(out, sizeof p + n);
  out[sizeof p + n] = (uint8_t)crc;
  out[sizeof p + n + 1] = (uint8_t)(crc >> 8);
  return sizeof p + n + 2;
}

static int feed(dxl_parser_t *p, const uint8_t *b, size_t n, dxl_status_t *last) {
  int got = 0;
  for (size_t i = 0; i < n; i++) got += dxl_parse_status(p, b[i], last);
  return got;
}

static void dxl_parses_status_packets(void) {
  dxl_parser_t p = {0};
  dxl_status_t st;
  uint8_t pkt[64];
  static const uint8_t pos[] = {0x00, 0x08, 0x00, 0x00}; /* 2048 */
  size_t n = status(22, 0, pos, 4, pkt);
  CHECK(n == DXL_STATUS_BYTES(4) && feed(&p, pkt, n, &st) == 1, "a position status was not parsed");
  CHECK(st.id == 22 && st.n == 4 && st.value == 2048 && st.error == 0, "position status fields wrong");
  static const uint8_t off[] = {0x00};
  n = status(13, 0, off, 1, pkt);
  CHECK(feed(&p, pkt, n, &st) == 1 && st.id == 13 && st.n == 1 && st.value == 0, "a torque-enable status was not parsed");
  /* Noise, an FF run and a corrupted packet before a good one: only the good one. */
  uint8_t stream[128];
  size_t k = 0;
  static const uint8_t junk[] = {0x12, 0xFF, 0x00, 0xFF, 0xFF, 0xFF};
  memcpy(stream, junk, sizeof junk);
  k += sizeof junk;
  n = status(31, 0, pos, 4, stream + k);
  stream[k + 9] ^= 0x40; /* bad CRC */
  k += n;
  stream[k++] = 0xFF; /* FF FF FF FD 00: a header after an extra FF */
  k += status(32, 0x80, off, 1, stream + k);
  CHECK(feed(&p, stream, k, &st) == 1 && st.id == 32 && st.error == 0x80, "noise, a bad CRC or an FF run confused the parser");
  /* Our own sync read, echoed back by the bus buffer, is not a status. */
  uint8_t ids[3] = {1, 2, 3};
  n = dxl_sync_read(DXL_ADDR_TORQUE_ENABLE, 1, ids, 3, pkt, sizeof pkt);
  CHECK(feed(&p, pkt, n, &st) == 0, "an echoed instruction packet was taken for a status");
}

static void dxl_builds_sync_packets(void) {
  uint8_t ids[2] = {20, 21}, data[2] = {0, 0}, pkt[64];
  size_t n = dxl_sync_write(DXL_ADDR_TORQUE_ENABLE, 1, ids, 2, data, pkt, sizeof pkt);
  static const uint8_t head[] = {0xFF, 0xFF, 0xFD, 0x00, 0xFE, 0x0B, 0x00, 0x83, 64, 0, 1, 0, 20, 0, 21, 0};
  CHECK(n == sizeof head + 2 && memcmp(pkt, head, sizeof head) == 0, "torque-off sync write bytes");
  uint16_t crc = dxl_crc16(pkt, n - 2);
  CHECK(pkt[n - 2] == (uint8_t)crc && pkt[n - 1] == (uint8_t)(crc >> 8), "sync write CRC");
  n = dxl_sync_read(DXL_ADDR_TORQUE_ENABLE, 1, ids, 2, pkt, sizeof pkt);
  static const uint8_t rd[] = {0xFF, 0xFF, 0xFD, 0x00, 0xFE, 0x09, 0x00, 0x82, 64, 0, 1, 0, 20, 21};
  CHECK(n == sizeof rd + 2 && memcmp(pkt, rd, sizeof rd) == 0, "torque-enable sync read bytes");
}

int main(void) {
  ring_keeps_order_and_counts_overflow();
  ring_across_the_index_wrap();
  ring_absorbs_a_blocking_write();
  bus_holds_writes_while_replies_are_due();
  bus_frees_early_when_every_reply_is_in();
  bus_orders_and_coalesces();
  bus_across_the_clock_wrap();
  dxl_crc_matches_the_manual();
  dxl_parses_status_packets();
  dxl_builds_sync_packets();
  printf("rp2040-test: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
