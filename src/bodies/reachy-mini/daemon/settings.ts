/**
 * What a reachy-mini:daemon robot is configured with (the fleet's `robots:` entry) and the verbs
 * it performs: apart from the body so the catalog and `config check` read them without loading it.
 */
import { z } from 'zod';
import { _default } from '../../../zod-mini.js';
import { numberSetting } from '../../../config/number-setting.js';
import { CameraSettingsSchema } from '../../../camera/settings.js';

export const DEFAULT_DAEMON_URL = 'http://localhost:8000';

export const daemonSettings = z
  .object({
    /** Where Pollen's daemon answers: the host computer's (Lite over USB) or the robot's own Pi (Wireless). */
    base_url: z
      .url({ protocol: /^https?$/, error: 'an http(s) URL, e.g. http://localhost:8000 or http://reachy-mini.local:8000' })
      .default(DEFAULT_DAEMON_URL),
    /** Seconds one request may take before the verb ends with "did not answer". */
    timeout_s: _default(numberSetting({ example: 5, positive: true, max: 120 }), 5),
    /**
     * What the daemon plays for `quack`: `quackd` (quackd's own quack, uploaded to the daemon's
     * sounds at a run's first quack), a file the daemon has (one of its assets, e.g. wake_up.wav,
     * or a path on its machine), or `none` (the antennas' wiggle alone).
     */
    quack_sound: z.string().min(1).default('quackd'),
    /**
     * The robot's own camera, read by quackd once the daemon has released it: Lite's USB camera
     * on the host (/dev/video0), Wireless's on its Pi (rpicam). Without it, looks see nothing.
     */
    camera: CameraSettingsSchema.optional(),
  })
  .strict();

export type DaemonSettings = z.infer<typeof daemonSettings>;

export const DAEMON_VERBS = ['look', 'turn_body', 'antennas', 'look_around', 'report', 'quack', 'torque'] as const;

export const DAEMON_METRICS = ['quacks', 'torque', 'objects_reported'] as const;
