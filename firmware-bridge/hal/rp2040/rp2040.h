/* What the RP2040 main loop needs from hal-rp2040.c beyond hal.h. */
#ifndef QD_RP2040_H
#define QD_RP2040_H

#include <stddef.h>
#include <stdint.h>

void rp2040_hal_init(void);
/* Bytes from the host link, without blocking. */
size_t rp2040_link_read(uint8_t *buf, size_t cap);
/* Drain the transmit ring, parse servo replies, poll positions, drive the buzzer. */
void rp2040_service(uint32_t now_ms);

#endif
