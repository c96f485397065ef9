/**
 * CPU time this process spent while `work` ran, in milliseconds, beside its result.
 *
 * For the bounds a unit test sets to catch a quadratic slip ("a 5 MB document in seconds, not
 * minutes"), not for measuring speed (the bench scripts do that). On a 2-core machine shared
 * with builds and browsers, wall time stretches with the load — 50,000 divs read in 4 s idle took
 * 15 s beside four other jobs — while the CPU time the work needs does not. Node only: the
 * process's user + system time, which also counts its garbage collector's threads.
 */
export function cpuMs<T>(work: () => T): [T, number] {
  const start = process.cpuUsage();
  const result = work();
  return [result, elapsed(start)];
}

export async function cpuMsAsync<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = process.cpuUsage();
  const result = await work();
  return [result, elapsed(start)];
}

function elapsed(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
