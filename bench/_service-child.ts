/**
 * bench/service.ts's serve+MQTT child: serve's own composition (src/service/lifecycle.ts with
 * serve.ts's front doors: MQTT, the summary, sd_notify), bundled with quackd's code as dist is;
 * it also says `ready` and each control:stats of its bus on stdout, which nothing outside the
 * service can read. Run as `node lib/serve-mqtt.js` with QUACKD_HOME set.
 */
import { serveDoors } from '../src/commands/serve.js';
import { ONNX_TELEMETRY_OFF } from '../src/policy/telemetry.js';
import { startService } from '../src/service/lifecycle.js';
import { stopOnSignals } from '../src/service/signals.js';

// As quackd's bins do (src/cli/bin.ts): onnxruntime's telemetry off unless the environment says
// otherwise. Without it this child alone ran the telemetry thread and its event database, against a
// floor (and a `quackd serve`) without them. Read when the first worker loads onnxruntime, after this.
process.env[ONNX_TELEMETRY_OFF.name] ??= ONNX_TELEMETRY_OFF.value;
const env = { QUACKD_HOME: process.env['QUACKD_HOME'] };
const serving = await startService({ env, doors: serveDoors(env) });
serving.service.events.on('control:stats', (e) => process.stdout.write(`${JSON.stringify({ robot: e.robot, stats: e.stats })}\n`));
process.stdout.write('ready\n');
await stopOnSignals((signal) => serving.stop(signal));
process.exit(0);
