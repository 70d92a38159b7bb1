/** `1-60,140-200,7` as a list of seeds (the find-and-kick benches' --seeds). */
export function seedList(spec: string): number[] {
  return spec.split(',').flatMap((part) => {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (m === null) throw new Error(`--seeds: "${part}" is not a seed or a range like 1-200`);
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}
