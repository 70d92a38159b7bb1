/* What the RP2040 main loop needs from hal-rp2040.c beyond hal.h. */
#ifndef QD_RP2040_H
#define QD_RP2040_H

#include <stddef.h>
#include <stdint.h>

void rp2040_hal_init(void);
/* Bytes from the host link (the receive interrupt's ring), without blocking. */
size_t rp2040_link_read(uint8_t *buf, size_t cap);
/* Bytes the receive rings had no room for, both UARTs. */
uint32_t rp2040_rx_dropped(void);
/* Drain the transmit ring, parse servo replies, poll positions, put the next packet on the
 * servo bus when it is free, drive the buzzer. */
void rp2040_service(uint32_t now_ms);

#endif
