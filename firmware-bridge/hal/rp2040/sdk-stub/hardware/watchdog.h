#ifndef QD_STUB_HARDWARE_WATCHDOG_H
#define QD_STUB_HARDWARE_WATCHDOG_H
#include "pico/types.h"
void watchdog_enable(uint32_t delay_ms, bool pause_on_debug);
void watchdog_update(void);
#endif
