#ifndef QD_STUB_HARDWARE_TIMER_H
#define QD_STUB_HARDWARE_TIMER_H
#include "pico/types.h"
uint32_t time_us_32(void);
#endif
