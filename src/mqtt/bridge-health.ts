/**
 * `<base>/bridge/health`: what a dashboard plots for the service itself (zigbee2mqtt's
 * bridge/health): the machine's load and memory, the service's uptime, each robot's loop rate,
 * and MQTT's own counters, dropped messages included.
 */
import { freemem, loadavg, totalmem } from 'node:os';
import type { RobotStatus } from '../service/api.js';
import type { PublisherStats } from './publisher.js';

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export function bridgeHealth(robots: readonly RobotStatus[], mqtt: PublisherStats, startedAtMs: number, nowMs: number = Date.now()): Record<string, unknown> {
  const memory = process.memoryUsage();
  return {
    healthy: true,
    uptime_s: Math.round((nowMs - startedAtMs) / 1000),
    load: loadavg().map((l) => Math.round(l * 100) / 100),
    memory: { rss_mb: mb(memory.rss), heap_used_mb: mb(memory.heapUsed), free_mb: mb(freemem()), total_mb: mb(totalmem()) },
    robots: Object.fromEntries(robots.map((r) => [r.robot, { activity: r.activity, ...(r.loop !== undefined ? { loop_hz: r.loop.hz, missed: r.loop.missed } : {}) }])),
    mqtt,
  };
}
