/**
 * Confirmation gates: a verb the duck lists under `confirm` needs a person's yes before it reaches
 * the body. On a TTY we ask; without one the answer is no, unless the run was started with --yes.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** `unasked`: the question was to go to a person (an MCP client's elicitation) and could not be put. */
export type GateHow = 'tty' | 'yes' | 'no-tty' | 'aborted' | 'person' | 'channel' | 'timeout' | 'unasked';

export interface GateDecision {
  readonly allowed: boolean;
  /**
   * `aborted`: the run stopped (Ctrl-C, the seconds budget) while the question was open;
   * `person`: answered through the service by a channel trusted to carry a person's answer (another
   * terminal, an MQTT login with the confirm right); `channel`: answered over a channel the config
   * does not trust to be a person (an external broker's client); `timeout`: nobody answered
   * the service's question in time.
   */
  readonly how: GateHow;
  /** Who answered, when the service heard it from someone: `mqtt client ha-den`. */
  readonly by?: string;
}

export interface Gate {
  /** `question` is the step line, e.g. `  5  kick right`. */
  confirm(question: string, signal?: AbortSignal): Promise<GateDecision>;
}

/** --yes: every gate opens, and the transcript says so. */
export const yesGate: Gate = { confirm: () => Promise.resolve({ allowed: true, how: 'yes' }) };

/** No TTY and no --yes: every gate stays shut. */
export const noTtyGate: Gate = { confirm: () => Promise.resolve({ allowed: false, how: 'no-tty' }) };

/** Ask a person on a terminal: `kick right — confirm? [y/N]`. Anything but y/yes is a no. */
export function ttyGate(input: Readable, output: Writable): Gate {
  return {
    confirm: (question, signal) =>
      new Promise<GateDecision>((resolve) => {
        const rl = createInterface({ input, output, terminal: false });
        let settled = false;
        // Settle before closing: closing fires 'close', which must not answer a second time.
        const done = (allowed: boolean, how: GateDecision['how'] = 'tty'): void => {
          if (settled) return;
          settled = true;
          // Nobody answered (Ctrl-C, the deadline, Ctrl-D): end the question's line, and do not
          // put words in a person's mouth.
          if (how === 'aborted') output.write('\n');
          resolve({ allowed, how });
          signal?.removeEventListener('abort', onAbort);
          rl.close();
        };
        const onAbort = (): void => done(false, 'aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
        rl.once('close', () => done(false, 'aborted'));
        rl.question(`${question} — confirm? [y/N] `, (answer) => done(/^\s*y(es)?\s*$/i.test(answer)));
      }),
  };
}

export function chooseGate(opts: { yes: boolean; stdin: Readable & { isTTY?: boolean }; stdout: Writable }): Gate {
  if (opts.yes) return yesGate;
  return opts.stdin.isTTY === true ? ttyGate(opts.stdin, opts.stdout) : noTtyGate;
}
