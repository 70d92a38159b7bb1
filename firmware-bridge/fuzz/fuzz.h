/* What the fuzz HAL records, so the driver can check that garbage never moved a joint. */
#ifndef QD_FUZZ_H
#define QD_FUZZ_H

#include <stdbool.h>
#include <stdint.h>

#include "../src/duck.h"

extern uint32_t fuzz_targets_applied;
extern bool fuzz_targets_in_limits; /* false once any applied target broke duck_lower/upper */
extern bool fuzz_targets_in_step;   /* false once a target moved further than one step */
extern float fuzz_step_max;         /* the step the core was configured with (rad) */
extern uint32_t fuzz_tx_frames;

#endif
