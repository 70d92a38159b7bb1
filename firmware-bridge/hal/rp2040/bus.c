#include "bus.h"

#include <string.h>

void bus_init(bus_t *b, const bus_timing_t *t) {
  memset(b, 0, sizeof *b);
  b->timing = *t;
  b->awaiting = BUS_NONE;
}

void bus_request(bus_t *b, bus_op_t op, bool urgent) {
  if (op == BUS_TORQUE) b->urgent = urgent; /* the latest torque value is the one sent */
  if (b->pending[op]) return;
  b->pending[op] = true;
  b->order[op] = b->next_order++;
}

bool bus_held(bus_t *b, uint32_t now_us) {
  if (!b->holding) return false;
  if ((int32_t)(now_us - b->until_us) < 0) return true;
  b->missing += b->replies_due;
  b->replies_due = 0;
  b->awaiting = BUS_NONE;
  b->holding = false;
  return false;
}

int bus_next(bus_t *b, uint32_t now_us) {
  int pick = BUS_NONE;
  for (int op = 0; op < BUS_OPS; op++) {
    if (!b->pending[op]) continue;
    if (pick == BUS_NONE || (int32_t)(b->order[op] - b->order[pick]) < 0) pick = op;
  }
  if (b->pending[BUS_TORQUE] && b->urgent) pick = BUS_TORQUE;
  if (pick == BUS_NONE) return BUS_NONE;
  if (bus_held(b, now_us)) {
    b->held++;
    return BUS_NONE;
  }
  b->pending[pick] = false;
  if (pick == BUS_TORQUE) b->urgent = false;
  return pick;
}

void bus_sent(bus_t *b, bus_op_t op, uint32_t now_us, uint32_t replies, uint32_t reply_bytes) {
  const bus_timing_t *t = &b->timing;
  b->sent[op]++;
  b->holding = true;
  b->replies_due = replies;
  b->awaiting = replies > 0 ? (int)op : BUS_NONE;
  b->until_us = now_us + replies * (t->return_delay_us + reply_bytes * t->byte_us) + t->guard_us;
}

void bus_reply(bus_t *b, bus_op_t op, uint32_t now_us) {
  if (!b->holding || b->awaiting != (int)op || b->replies_due == 0) return;
  b->replies++;
  if (--b->replies_due > 0) return;
  b->awaiting = BUS_NONE;
  b->until_us = now_us + b->timing.guard_us; /* every reply is in: only the turnaround is left */
}
