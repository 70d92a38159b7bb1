#ifndef QD_STUB_HARDWARE_IRQ_H
#define QD_STUB_HARDWARE_IRQ_H
#include "pico/types.h"
/* RP2040 interrupt numbers (hardware/regs/intctrl.h). */
#define UART0_IRQ 20
#define UART1_IRQ 21
typedef void (*irq_handler_t)(void);
void irq_set_exclusive_handler(uint num, irq_handler_t handler);
void irq_set_enabled(uint num, bool enabled);
#endif
