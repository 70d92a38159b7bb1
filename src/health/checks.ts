/**
 * The checks `quackd health` runs, in the order it prints them. A check source added later (the
 * running service's loop, link, battery and broker) is more entries here; the command and the
 * runner do not change.
 */
import { busCheck } from './bus.js';
import { cameraCheck } from './camera.js';
import type { HealthCheck } from './check.js';
import { configCheck } from './config.js';
import { daemonCheck } from './daemon.js';
import { heapTrimCheck } from './heap-trim.js';
import { imuCheck } from './imu.js';
import { modelCheck } from './model.js';
import { policiesCheck } from './policies.js';
import { policyRuntimeCheck } from './policy-runtime.js';
import { schedulingCheck } from './scheduling.js';
import { serviceCheck } from './service.js';
import { storeCheck } from './store.js';

export const HEALTH_CHECKS: readonly HealthCheck[] = [configCheck, modelCheck, imuCheck, cameraCheck, daemonCheck, policyRuntimeCheck, policiesCheck, schedulingCheck, heapTrimCheck, busCheck, storeCheck, serviceCheck];
