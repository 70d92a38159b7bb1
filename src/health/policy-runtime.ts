/**
 * `policy runtime`: which ONNX runtime would run the robot's policies, found by loading it as a
 * run does (`auto`: onnxruntime-node, else onnxruntime-web). Only this check loads onnxruntime,
 * and only for a robot that runs policies.
 */
import { PolicyError } from '../policy/errors.js';
import { fail, forRobot, ok, type HealthCheck } from './check.js';

/** The runtime's version as its module reports it (onnxruntime-common's `env.versions`). */
function versionOf(ort: object): string {
  const versions = (ort as { env?: { versions?: { common?: string } } }).env?.versions;
  return versions?.common ?? '(version unknown)';
}

export const policyRuntimeCheck: HealthCheck = {
  name: 'policy runtime',
  run: (ctx) =>
    forRobot(ctx, async (robot) => {
      if (robot.entry.policies !== true) return ok(`none needed: ${robot.key} runs no policies`);
      const { loadRuntime } = await import('../policy/runtime.js');
      try {
        const loaded = await loadRuntime('auto');
        const version = versionOf(loaded.ort);
        if (loaded.fallback === undefined) return ok(`${loaded.runtime} ${version} (native)`);
        // Runs the same graphs, slower; on armv7 it is the expected runtime, so not a warning.
        return ok(`${loaded.runtime} ${version} (WebAssembly: ${loaded.fallback})`);
      } catch (err) {
        if (err instanceof PolicyError) return fail(err.message);
        throw err;
      }
    }),
};
