#ifndef QD_STUB_PICO_TIME_H
#define QD_STUB_PICO_TIME_H
#include "pico/types.h"
#include "hardware/timer.h" /* as the SDK's pico/time.h does */
absolute_time_t get_absolute_time(void);
uint32_t to_ms_since_boot(absolute_time_t t);
#endif
