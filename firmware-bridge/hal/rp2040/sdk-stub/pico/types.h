#ifndef QD_STUB_PICO_TYPES_H
#define QD_STUB_PICO_TYPES_H
#include <stdbool.h>
#include <stdint.h>
typedef unsigned int uint;
typedef uint64_t absolute_time_t;
#endif
