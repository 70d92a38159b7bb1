/* What the host main loop needs from hal-host.c beyond hal.h: draining the transmit ring. */
#ifndef QD_HOST_H
#define QD_HOST_H

#include <stddef.h>
#include <stdint.h>

#define TX_RING_BYTES 16384u

/* The next contiguous run of queued bytes (possibly less than all of them). */
size_t host_tx_peek(const uint8_t **bytes);
void host_tx_consume(size_t n);

#endif
