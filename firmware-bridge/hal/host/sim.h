/*
 * The host HAL's simulated robot: joints as first-order servos with limits and their own torque
 * enable, an IMU (level unless tilt.h tips the trunk) and a battery that drains (faster with
 * torque on). Stepped by the host main loop; faults can be injected (lost torque-off writes,
 * silent servos) and falls staged (tilt.h).
 */
#ifndef QD_HOST_SIM_H
#define QD_HOST_SIM_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  float battery_start_v; /* volts at boot */
  float drain_v_per_s;   /* idle drain; torque on doubles it */
  float yaw_rate_deg_s;  /* the trunk's yaw rate while a joint moves (--yaw-rate); 0: it never turns */
} sim_config_t;

void sim_init(const sim_config_t *cfg);
void sim_step(uint32_t now_ms);

/* Faults to inject: the next n torque-off writes are lost on the bus (no servo hears them). */
void sim_drop_torque_off_writes(unsigned n);
/* These servos (bit per joint) never answer a torque read-back. */
void sim_silence(uint32_t joints);

/* What the simulated servos hold, for tests. */
bool sim_servo_torque(int joint);
float sim_target(int joint);
float sim_pos(int joint);
uint32_t sim_torque_writes(void);
uint32_t sim_torque_queries(void);
uint32_t sim_target_writes(void);

#endif
