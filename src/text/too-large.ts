/** The one line a file over its size limit is refused with: which file, its size, which limit. */
import { InputError } from '../errors.js';

export function tooLarge(source: string, bytes: number, limit: number, what: string): InputError {
  const mb = (n: number) => `${(n / (1 << 20)).toFixed(n % (1 << 20) === 0 ? 0 : 1)} MB`;
  return new InputError(`${source}: ${mb(bytes)}, over the ${mb(limit)} limit for ${what}`);
}
