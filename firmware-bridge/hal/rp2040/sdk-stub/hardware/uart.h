#ifndef QD_STUB_HARDWARE_UART_H
#define QD_STUB_HARDWARE_UART_H
#include "pico/types.h"
typedef struct uart_inst uart_inst_t;
#define uart0 ((uart_inst_t *)0x40034000u)
#define uart1 ((uart_inst_t *)0x40038000u)
uint uart_init(uart_inst_t *uart, uint baudrate);
bool uart_is_readable(uart_inst_t *uart);
bool uart_is_writable(uart_inst_t *uart);
char uart_getc(uart_inst_t *uart);
void uart_putc_raw(uart_inst_t *uart, char c);
void uart_tx_wait_blocking(uart_inst_t *uart);
void uart_set_fifo_enabled(uart_inst_t *uart, bool enabled);
/* rx_has_data enables the RX and RX-timeout interrupts (the SDK >= 2.0 also names it uart_set_irqs_enabled). */
void uart_set_irq_enables(uart_inst_t *uart, bool rx_has_data, bool tx_needs_data);
#endif
