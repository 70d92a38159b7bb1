/**
 * What can go wrong with a control loop, as one typed error with a kind and a one-line message:
 * the plant could not be made, a verb is already running, the loop is closed or its worker died.
 * A body maps these to its own errors; nothing here knows of exit codes.
 */
export type ControlErrorKind = 'plant' | 'busy' | 'closed' | 'crashed' | 'settings';

export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    message: string,
    readonly kind: ControlErrorKind,
  ) {
    super(message);
  }
}
