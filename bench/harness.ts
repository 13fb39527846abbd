import { cpus, loadavg, totalmem } from 'node:os';

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

/** Median of a list of numbers (rounded to µs). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const value = sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  return Math.round((value ?? Number.NaN) * 1000) / 1000;
}

/**
 * Runs competing subjects in the same process, interleaved: every repetition runs each subject
 * once, and the order rotates by one per repetition so none always runs first (JIT warm-up,
 * GC debt and a busy neighbour are spread over all). Each subject's `setup` runs untimed
 * before each of its runs (a fresh counter for cold runs).
 *
 * @returns Per subject: the median and every run in milliseconds.
 */
export async function interleaved<S>(
  subjects: Readonly<Record<string, { setup?: () => S; run: (state: S) => unknown }>>,
  { repetitions = 5, warmup = 0 }: { repetitions?: number; warmup?: number } = {},
): Promise<Record<string, { ms: number; runs: number[] }>> {
  const names = Object.keys(subjects);
  const runs = new Map<string, number[]>(names.map((name) => [name, []]));
  for (let rep = -warmup; rep < repetitions; rep++) {
    const offset = ((rep % names.length) + names.length) % names.length;
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + offset) % names.length] as string;
      const subject = subjects[name] as { setup?: () => S; run: (state: S) => unknown };
      const state = subject.setup?.() as S;
      const start = performance.now();
      await subject.run(state);
      const ms = performance.now() - start;
      if (rep >= 0) runs.get(name)?.push(Math.round(ms * 1000) / 1000);
    }
  }
  return Object.fromEntries(
    names.map((name) => [name, { ms: median(runs.get(name) ?? []), runs: runs.get(name) ?? [] }]),
  );
}

/**
 * The growth exponent k of `time ∝ size^k`: least squares on log(size), log(time).
 * 1 is linear; 2 quadratic; 0 flat.
 */
export function growthExponent(points: readonly { size: number; value: number }[]): number | undefined {
  const usable = points.filter((p) => p.size > 0 && p.value > 0);
  if (usable.length < 2) return undefined;
  const xs = usable.map((p) => Math.log(p.size));
  const ys = usable.map((p) => Math.log(p.value));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  xs.forEach((x, i) => {
    num += (x - mx) * ((ys[i] as number) - my);
    den += (x - mx) ** 2;
  });
  return Math.round((num / den) * 100) / 100;
}

/** The 1, 5 and 15-minute load averages and the core count when a result was taken. */
export function load(): { loadAverage: number[]; cpus: number } {
  return { loadAverage: loadavg().map((value) => Math.round(value * 100) / 100), cpus: cpus().length };
}
