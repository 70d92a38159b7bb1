/**
 * Skips that only a developer's machine may take. Under CI (CI=true, as test/bridge/rig.ts reads
 * it) nothing is skipped for a missing tool or privilege: CI has them, so a test that cannot run
 * there fails the run instead of passing as "skipped".
 */
export function skipOutsideCi(reason: string | undefined): string | undefined {
  return process.env['CI'] === 'true' ? undefined : reason;
}

/** For the tests that need root: to mount a small tmpfs and fill a disk for real, to take a privilege away. */
export function needsRoot(what = 'to mount a small tmpfs'): string | undefined {
  return skipOutsideCi(process.getuid?.() === 0 ? undefined : `needs root ${what}`);
}
