/**
 * A network camera on 127.0.0.1, as an ESP32-CAM or an IP camera serves one: GET /stream is
 * MJPEG (multipart/x-mixed-replace, one JPEG per part) at `fps`, each frame rendered when it is
 * sent, so a frame shows the world as it is then. Frames are made only while a client watches.
 * `stall()` keeps the connection open and sends nothing more (a camera that froze); `close()`
 * drops every client (a camera unplugged).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CameraFrame } from '../../src/camera/camera.js';
import { encodePicture } from '../../src/vision/picture.js';

const BOUNDARY = 'quackdframe';

export class MjpegCamera {
  /** Frames sent to any client so far. */
  sent = 0;
  /** When each of the newest frames went out (Date.now()), by its number (`sent` before it). */
  readonly sentAt = new Map<number, number>();
  private readonly clients = new Set<ServerResponse>();
  private timer: NodeJS.Timeout | undefined;
  private stalled = false;

  private constructor(
    private readonly server: Server,
    private readonly render: () => Omit<CameraFrame, 'at'>,
    private readonly fps: number,
  ) {}

  static async start(render: () => Omit<CameraFrame, 'at'>, fps = 5): Promise<MjpegCamera> {
    const holder: { camera?: MjpegCamera } = {};
    const server = createServer((req, res) => holder.camera?.serve(req, res));
    const camera = new MjpegCamera(server, render, fps);
    holder.camera = camera;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return camera;
  }

  /** The stream's address, as a robot's `camera: { device: … }` names it. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/stream`;
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    if (req.url !== '/stream') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': `multipart/x-mixed-replace; boundary=${BOUNDARY}`, 'cache-control': 'no-cache' });
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
    this.timer ??= setInterval(() => this.frame(), 1000 / this.fps);
  }

  private frame(): void {
    if (this.clients.size === 0 || this.stalled) return;
    const frame = this.render();
    const { jpeg } = encodePicture(frame, frame.width, 90);
    const head = `--${BOUNDARY}\r\ncontent-type: image/jpeg\r\ncontent-length: ${jpeg.length}\r\n\r\n`;
    for (const res of this.clients) {
      res.write(head);
      res.write(jpeg);
      res.write('\r\n');
    }
    this.sentAt.set(this.sent, Date.now());
    this.sentAt.delete(this.sent - 256);
    this.sent += 1;
  }

  /** From now on the stream sends nothing, its connection held open. */
  stall(): void {
    this.stalled = true;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const res of this.clients) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
