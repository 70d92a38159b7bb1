/** `1 step`, `2 steps`: counts as people and models read them. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
