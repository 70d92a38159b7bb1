/**
 * A transcript line as recording messages: every line a foxglove.Log, and a frame the robot's
 * pose (where it says one) and the room. Pure; the recorder and the live server send the same.
 */
import type { TranscriptEvent } from '../transcript/events.js';
import type { ChannelMessage } from './joint-messages.js';
import { logLine } from './log-line.js';
import { FRAMES, poseOfFrame, roomScene, trunkTransform, type Frames } from './scene.js';

export function transcriptMessages(event: TranscriptEvent, epochMs: number, frames: Frames = FRAMES): ChannelMessage[] {
  const out: ChannelMessage[] = [{ channel: 'log', epochMs, message: logLine(event, epochMs) }];
  if (event.type !== 'frame') return out;
  const pose = poseOfFrame(event.state);
  if (pose !== undefined) out.push({ channel: 'tf', epochMs, message: trunkTransform(pose, epochMs, frames) });
  out.push({ channel: 'room', epochMs, message: roomScene(event.state, epochMs, frames) });
  return out;
}
