/**
 * A robot's `camera:` setting, checked by `quackd config check` with the rest of its settings:
 * where the frames come from, their size, the lens's horizontal field of view, and where the
 * camera sits on the robot (what turns a blob's size into a distance).
 */
import { z } from 'zod';

export const CameraMountSchema = z
  .object({
    /** The lens above the floor. */
    height_m: z.number().positive().max(3).default(0.15),
    /** Tilted down (+) or up (-) from level. */
    pitch_deg: z.number().min(-60).max(60).default(0),
    /** Ahead of the robot's centre, where its bearings are measured from. */
    ahead_m: z.number().min(-1).max(1).default(0),
  })
  .strict();

/**
 * `/dev/video0` (V4L2 through ffmpeg), `rpicam` or `rpicam:1` (rpicam-vid), a network camera's
 * stream (`http://…` MJPEG as an ESP32-CAM or an IP camera serves it, `rtsp://…`, through
 * ffmpeg), `synthetic` (a simulator's).
 */
const DEVICE = /^(\/dev\/\S+|rpicam(:\d+)?|(https?|rtsp):\/\/\S+|synthetic)$/;

export const CameraSettingsSchema = z
  .object({
    device: z.string().regex(DEVICE, 'a V4L2 device (/dev/video0), rpicam (or rpicam:1), a stream (http://… or rtsp://…), or synthetic'),
    width: z.number().int().min(16).max(4096).default(640),
    height: z.number().int().min(16).max(4096).default(480),
    fov_deg: z.number().gt(10).lt(180).default(62),
    /** Frames a second the camera's process makes: a cap, so a grab costs the robot little. */
    fps: z.number().positive().max(30).default(5),
    /** How long a grab waits for a frame before the verb fails. */
    deadline_ms: z.number().int().positive().max(60_000).default(3000),
    mount: CameraMountSchema.default({ height_m: 0.15, pitch_deg: 0, ahead_m: 0 }),
  })
  .strict();

export type CameraSettings = z.infer<typeof CameraSettingsSchema>;
export type CameraMount = z.infer<typeof CameraMountSchema>;
