/**
 * `<base>/bridge/logging`: the service's log lines at info and above, in zigbee2mqtt's shape
 * `{"level": "info"|"warning"|"error", "message": "...", "namespace": "mqtt"}`, the message being
 * the line the journal shows (`mqtt: connected to the MQTT broker broker=…`). Lines come already
 * redacted (src/log.ts tapLogs), so no key reaches a dashboard either. Not retained.
 */
import { isRecord } from '../is-record.js';
import { terminalLine } from '../log.js';

export interface LoggingPayload {
  readonly level: 'info' | 'warning' | 'error';
  readonly message: string;
  readonly namespace: string;
}

/** pino's info level: debug and trace stay in the journal, as zigbee2mqtt keeps debug off MQTT. */
const INFO = 30;

/** The payload for one pino JSON line, or undefined for a line below info (or not a record). */
export function loggingPayload(line: string): LoggingPayload | undefined {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isRecord(record)) return undefined;
  const level = typeof record['level'] === 'number' ? record['level'] : INFO;
  if (level < INFO) return undefined;
  return {
    level: level >= 50 ? 'error' : level >= 40 ? 'warning' : 'info',
    // One line, as the journal has it.
    message: terminalLine(record).replace(/\s*[\r\n]+\s*/g, ' '),
    namespace: typeof record['module'] === 'string' ? record['module'] : 'quackd',
  };
}
