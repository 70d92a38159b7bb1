/** An observation builder's input of the wrong width is a bug in its caller, never something a person can cause. */
export function need(what: string, values: ArrayLike<number>, length: number): void {
  if (values.length !== length) throw new RangeError(`observation: ${what} has ${values.length} values, expected ${length}`);
}
