/*
 * Who may talk on the servos' half-duplex bus, and when. The bus carries four kinds of packet:
 * the torque-enable write, the goal-position write, the torque-enable read-back and the
 * present-position read; a read makes every servo answer in turn, and while those answers are
 * due nothing else may drive the line, or it collides with them. So:
 *   - one request per kind is pending at most, and a newer request of that kind only refreshes
 *     it (the HAL builds the packet from the latest values when it is sent);
 *   - pending requests go out in the order they were first made, except a torque off, which
 *     goes first;
 *   - after a packet, the bus is held until its replies are all in or its reply window is over
 *     (replies x (return delay + reply bytes) + a guard), then a turnaround guard.
 * Times are microseconds on a free-running 32-bit clock (wrap-safe). No SDK calls: tested on the
 * host; hal-rp2040.c moves the bytes.
 */
#ifndef QD_BUS_H
#define QD_BUS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { BUS_TORQUE, BUS_GOAL, BUS_TORQUE_READ, BUS_POS_READ, BUS_OPS } bus_op_t;
#define BUS_NONE (-1)

typedef struct {
  uint32_t byte_us;         /* one byte on the wire: 10 bits at the bus rate */
  uint32_t return_delay_us; /* each servo's Return Delay Time, as configured in the servos */
  uint32_t guard_us;        /* after the last reply (or a write): the bus turns around */
} bus_timing_t;

typedef struct {
  bus_timing_t timing;
  bool pending[BUS_OPS];
  uint32_t order[BUS_OPS];
  uint32_t next_order;
  bool urgent; /* the pending torque write is a torque off */
  bool holding;        /* the bus is held for replies or a turnaround */
  int awaiting;        /* the op whose replies are due, or BUS_NONE */
  uint32_t replies_due;
  uint32_t until_us;   /* the hold ends here (window or guard) */
  /* counters */
  uint32_t sent[BUS_OPS];
  uint32_t replies;    /* replies counted against a window */
  uint32_t missing;    /* replies still due when their window closed */
  uint32_t held;       /* polls where a request waited because replies were due */
} bus_t;

void bus_init(bus_t *b, const bus_timing_t *t);
/* Ask for a packet of this kind; urgent (a torque off) goes before the others. */
void bus_request(bus_t *b, bus_op_t op, bool urgent);
/* True while a reply window or a turnaround holds the bus. */
bool bus_held(bus_t *b, uint32_t now_us);
/* The op to put on the bus now, taken off the pending set; BUS_NONE while the bus is held or nothing waits. */
int bus_next(bus_t *b, uint32_t now_us);
/* The op's packet has left the wire at now_us; `replies` status packets of `reply_bytes` each follow. */
void bus_sent(bus_t *b, bus_op_t op, uint32_t now_us, uint32_t replies, uint32_t reply_bytes);
/* A good status packet for `op` came in. Replies that are not due (a late one, another kind) do not count. */
void bus_reply(bus_t *b, bus_op_t op, uint32_t now_us);

#endif
