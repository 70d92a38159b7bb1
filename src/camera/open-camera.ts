/**
 * Opens the camera a robot's `camera:` setting names, importing only its backend. A simulator
 * passes its renderer; `synthetic` on a real robot is refused with the reason.
 */
import { CameraError, type Camera } from './camera.js';
import type { CameraSettings } from './settings.js';
import type { RenderView } from './synthetic-camera.js';

export async function openCamera(settings: CameraSettings, render?: RenderView): Promise<Camera> {
  if (settings.device === 'synthetic') {
    if (render === undefined) throw new CameraError('missing', 'camera synthetic: only a simulator has one; name a device (/dev/video0) or rpicam');
    return new (await import('./synthetic-camera.js')).SyntheticCamera(render);
  }
  if (settings.device.startsWith('rpicam')) return (await import('./rpicam-camera.js')).rpicamCamera(settings);
  return (await import('./ffmpeg-camera.js')).ffmpegCamera(settings);
}
