#ifndef QD_STUB_PICO_RAND_H
#define QD_STUB_PICO_RAND_H
#include "pico/types.h"
uint32_t get_rand_32(void);
#endif
