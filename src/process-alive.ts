/**
 * Whether process `pid` is still there, asked with signal 0 (which sends nothing, it only checks):
 * a run's transcript and a record's leftover temporary file both name the process that wrote them,
 * and both are judged by whether it still runs.
 */

/** EPERM: it runs, as another user (the service's own account); ESRCH: no such process. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
