import { canonicalModelKey } from './model-keys.ts';

/** Powers of two that windows and output limits are usually sized by: 2,048 … 4,194,304. */
const POWERS_OF_TWO = Array.from({ length: 12 }, (_, i) => 2 ** (i + 11));

/**
 * Sizes providers publish as written although one digit away from a power of two: OpenAI's
 * 16,385-token window of gpt-3.5-turbo and 1,047,576-token window of GPT-4.1
 * (platform.openai.com, model pages).
 */
export const DOCUMENTED_ODD_SIZES: ReadonlySet<number> = new Set([16_385, 1_047_576]);

/**
 * The power of two a token limit was most likely meant to be, when it differs from one in a
 * single decimal digit (`262114` for 262,144, `66536` for 65,536) and is not a documented
 * odd size; else `undefined`.
 *
 * @example
 * likelyTypoOf(262_114); // 262144
 * likelyTypoOf(128_000); // undefined
 */
export function likelyTypoOf(tokens: number): number | undefined {
  if (DOCUMENTED_ODD_SIZES.has(tokens)) return undefined;
  const digits = String(tokens);
  for (const power of POWERS_OF_TWO) {
    const expected = String(power);
    if (power === tokens || expected.length !== digits.length) continue;
    let differing = 0;
    for (let i = 0; i < digits.length; i++) if (digits[i] !== expected[i]) differing++;
    if (differing === 1) return power;
  }
  return undefined;
}

/** A problem in model data: what, which model, and a sentence saying it. */
export interface ModelDataProblem {
  readonly kind: 'max-output-above-window' | 'typo-like-size' | 'conflicting-duplicate';
  /** `provider/id`. */
  readonly model: string;
  readonly message: string;
}

/** The fields of a model the checks read (a registry entry or a snapshot line). */
export interface CheckedModel {
  readonly id: string;
  readonly provider: string;
  readonly contextWindow: number;
  readonly maxOutputTokens?: number | undefined;
  readonly aliases?: readonly string[] | undefined;
}

/**
 * Checks model entries for what the datasets get wrong (MOD-1): a max output above the
 * window, a window or max output one digit away from a power of two, and an id or alias that
 * names two entries of one provider with different numbers. `scripts/update-models.ts` fixes
 * what it can and refuses to write a snapshot with problems left; a test runs this over the
 * bundled registry.
 */
export function checkModelEntries(entries: readonly CheckedModel[]): ModelDataProblem[] {
  const problems: ModelDataProblem[] = [];
  const byKey = new Map<string, CheckedModel[]>();
  for (const entry of entries) {
    const model = `${entry.provider}/${entry.id}`;
    if (entry.maxOutputTokens !== undefined && entry.maxOutputTokens > entry.contextWindow) {
      problems.push({
        kind: 'max-output-above-window',
        model,
        message: `${model}: max output ${entry.maxOutputTokens} exceeds its window ${entry.contextWindow}`,
      });
    }
    for (const [field, value] of [
      ['window', entry.contextWindow],
      ['max output', entry.maxOutputTokens],
    ] as const) {
      const meant = value === undefined ? undefined : likelyTypoOf(value);
      if (meant !== undefined)
        problems.push({
          kind: 'typo-like-size',
          model,
          message: `${model}: ${field} ${value} looks like a typo of ${meant}`,
        });
    }
    for (const name of new Set([entry.id, ...(entry.aliases ?? [])].map(canonicalModelKey))) {
      const key = `${entry.provider}/${name}`;
      byKey.set(key, [...(byKey.get(key) ?? []), entry]);
    }
  }
  for (const [key, named] of byKey) {
    const sizes = new Set(named.map((entry) => `${entry.contextWindow}/${entry.maxOutputTokens ?? '-'}`));
    if (sizes.size > 1)
      problems.push({
        kind: 'conflicting-duplicate',
        model: key,
        message: `${key} names ${named.length} entries with different sizes: ${named
          .map((entry) => `${entry.id} (${entry.contextWindow}/${entry.maxOutputTokens ?? '-'})`)
          .join(', ')}`,
      });
  }
  return problems;
}
