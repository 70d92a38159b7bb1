/*
 * The host HAL's simulated robot: joints as first-order servos with limits, a level IMU and a
 * battery that drains (faster with torque on). Stepped by the host main loop.
 */
#ifndef QD_HOST_SIM_H
#define QD_HOST_SIM_H

#include <stdint.h>

typedef struct {
  float battery_start_v; /* volts at boot */
  float drain_v_per_s;   /* idle drain; torque on doubles it */
} sim_config_t;

void sim_init(const sim_config_t *cfg);
void sim_step(uint32_t now_ms);

#endif
