/**
 * The picture encoder's thread: a frame in (its RGB bytes transferred, not copied), the JPEG out
 * (transferred back). Shrinking and encoding a 640×480 frame takes 60–170 ms of a Pi's or this
 * machine's CPU, which the main thread (the pilot, the bridge's heartbeat) must not spend.
 */
import { parentPort } from 'node:worker_threads';
import { encodePicture } from './picture.js';
import type { EncodeRequest, EncodeAnswer } from './picture-encoder.js';

parentPort?.on('message', (req: EncodeRequest) => {
  try {
    const picture = encodePicture({ width: req.width, height: req.height, rgb: new Uint8Array(req.rgb) }, req.pictureWidth);
    const answer: EncodeAnswer = { id: req.id, jpeg: picture.jpeg.slice().buffer };
    parentPort?.postMessage(answer, [answer.jpeg as ArrayBuffer]);
  } catch (err) {
    const answer: EncodeAnswer = { id: req.id, error: err instanceof Error ? err.message : String(err) };
    parentPort?.postMessage(answer);
  }
});
