#include "ring.h"

void ring_init(ring_t *r, volatile uint8_t *storage, uint32_t size) {
  r->buf = storage;
  r->mask = size - 1u;
  r->head = 0;
  r->tail = 0;
  r->dropped = 0;
}

bool ring_push(ring_t *r, uint8_t byte) {
  uint32_t head = r->head;
  if (head - r->tail > r->mask) {
    r->dropped++;
    return false;
  }
  r->buf[head & r->mask] = byte;
  r->head = head + 1u; /* published after the byte is stored */
  return true;
}

size_t ring_pop(ring_t *r, uint8_t *out, size_t cap) {
  uint32_t tail = r->tail;
  uint32_t avail = r->head - tail;
  size_t n = 0;
  while (n < cap && n < avail) {
    out[n] = r->buf[(tail + (uint32_t)n) & r->mask];
    n++;
  }
  r->tail = tail + (uint32_t)n; /* released after the bytes are read */
  return n;
}

uint32_t ring_count(const ring_t *r) { return r->head - r->tail; }
