import { cpus, totalmem } from 'node:os';

/** Median wall time in milliseconds of `runs` calls of `fn` after `warmup` calls. */
export async function medianMs(
  fn: () => unknown,
  { runs = 15, warmup = 2 }: { runs?: number; warmup?: number } = {},
): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return Math.round((times[Math.floor(times.length / 2)] as number) * 1000) / 1000;
}

/** The machine a result was measured on. */
export function machine(): { cpu: string; cores: number; memoryGiB: number; node: string; date: string } {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString().slice(0, 10),
  };
}
