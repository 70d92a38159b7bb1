/*
 * A single-producer, single-consumer byte ring: a UART's receive interrupt pushes, the main loop
 * pops. The UART's own FIFO holds 32 bytes, 320 us at 1 Mbaud, less than a blocking bus write
 * lasts; this ring holds what arrives meanwhile. No lock: head is written only by the producer,
 * tail only by the consumer, indices run free (head - tail is the fill, wrap-safe) over a
 * power-of-two buffer, and on the single-core Cortex-M0+ volatile accesses happen in program
 * order. A full ring drops the new byte and counts it. No SDK calls: tested on the host.
 */
#ifndef QD_RING_H
#define QD_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
  volatile uint8_t *buf;
  uint32_t mask;
  volatile uint32_t head;    /* producer only */
  volatile uint32_t tail;    /* consumer only */
  volatile uint32_t dropped; /* producer only: bytes that found the ring full */
} ring_t;

/* size must be a power of two. */
void ring_init(ring_t *r, volatile uint8_t *storage, uint32_t size);
/* Producer side (the interrupt handler). False, and counted, when full. */
bool ring_push(ring_t *r, uint8_t byte);
/* Consumer side: up to cap bytes, oldest first; returns how many. */
size_t ring_pop(ring_t *r, uint8_t *out, size_t cap);
uint32_t ring_count(const ring_t *r);

#endif
