/**
 * HTTP to Pollen's Reachy Mini daemon (its FastAPI app, routes under /api) through Node's fetch,
 * each request bounded by a timeout. Whatever goes wrong (the daemon down, silent past the
 * timeout, answering an error) becomes a DaemonError of one line that names the request and
 * says what the daemon said, so a verb ends with it and nothing crashes.
 */
import { BodyError } from '../../body.js';
import { isRecord } from '../../../is-record.js';

export class DaemonError extends BodyError {
  constructor(
    message: string,
    /** `down`: nothing answers; `timeout`: it did not answer in time; `stopped`: quackd stopped the request (Ctrl-C); `http`: it answered an error status. */
    readonly kind: 'down' | 'timeout' | 'stopped' | 'http',
    readonly status?: number,
  ) {
    super(message);
  }
}

/** FastAPI's error body: `{"detail": "…"}` from an HTTPException, a list of `{loc, msg}` from a validation error. */
function detailOf(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    const detail = isRecord(parsed) ? parsed['detail'] : undefined;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return detail.map((d) => (isRecord(d) && typeof d['msg'] === 'string' ? `${Array.isArray(d['loc']) ? `${d['loc'].join('.')}: ` : ''}${d['msg']}` : JSON.stringify(d))).join('; ');
  } catch {
    // Not JSON: an uncaught exception's "Internal Server Error", or a proxy's page.
  }
  return body.replace(/\s+/g, ' ').trim().slice(0, 200) || '(no body)';
}

function causeCode(err: unknown): string | undefined {
  const cause = isRecord(err) ? err['cause'] : undefined;
  return isRecord(cause) && typeof cause['code'] === 'string' ? cause['code'] : undefined;
}

export class DaemonClient {
  constructor(
    readonly baseUrl: string,
    readonly timeoutMs: number,
  ) {}

  get(path: string, signal?: AbortSignal): Promise<unknown> {
    return this.request('GET', path, {}, signal);
  }

  post(path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.request('POST', path, body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, signal);
  }

  /** A file as FastAPI's `UploadFile` field `file` takes it (multipart/form-data). */
  upload(path: string, filename: string, bytes: Uint8Array, signal?: AbortSignal): Promise<unknown> {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'audio/wav' }), filename);
    return this.request('POST', path, { body: form }, signal);
  }

  private async request(method: string, path: string, init: Pick<RequestInit, 'headers' | 'body'>, signal?: AbortSignal): Promise<unknown> {
    const what = `${method} ${path}`;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await fetch(new URL(path, this.baseUrl), {
        method,
        signal: signal !== undefined ? AbortSignal.any([signal, timeout]) : timeout,
        ...init,
      });
      text = await res.text();
    } catch (err) {
      if (timeout.aborted) throw new DaemonError(`the Reachy Mini daemon at ${this.baseUrl} did not answer ${what} within ${this.timeoutMs / 1000} s`, 'timeout');
      if (signal?.aborted === true) throw new DaemonError(`${what} to the Reachy Mini daemon was stopped`, 'stopped');
      const code = causeCode(err);
      throw new DaemonError(`the Reachy Mini daemon at ${this.baseUrl} is not answering (${code ?? (err instanceof Error ? err.message : String(err))}): is reachy-mini-daemon running there?`, 'down');
    }
    if (!res.ok) throw new DaemonError(`the Reachy Mini daemon answered ${what} with ${res.status}: ${detailOf(text)}`, 'http', res.status);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new DaemonError(`the Reachy Mini daemon answered ${what} with something not JSON: ${detailOf(text)}`, 'http', res.status);
    }
  }
}
