/**
 * `service`: whether `quackd serve` runs on this machine. There is no service yet, so it never
 * does; when there is, this asks its control socket, and the service's own checks (loop, link,
 * battery, broker) join the list in checks.ts beside this one.
 */
import { warn, type HealthCheck } from './check.js';

export const serviceCheck: HealthCheck = {
  name: 'service',
  run: () => Promise.resolve(warn('not running')),
};
