import { describe, expect, it } from 'vitest';
import type { CompactionReport } from '../../compaction/types.ts';
import { autoCompactionNotice } from '../client/src/format.ts';
import { toCompactionResult } from './stream-events.ts';

const report = (change: Partial<CompactionReport>): CompactionReport =>
  ({
    compacted: true,
    cancelled: false,
    mode: 'auto',
    reason: 'prompt 30,000 ≥ 65 % of the window 32,000',
    budget: { window: 32_000, responseReserve: 8000, safetyMargin: 1600, toolTokens: 0, messages: 22_400 },
    target: 14_400,
    tokensBefore: 30_000,
    tokensAfter: 13_900,
    messagesBefore: 120,
    messagesAfter: 30,
    tokenizer: 'openai:o200k_base',
    accuracy: 'exact',
    stages: [],
    fallbacks: [],
    warnings: [],
    ...change,
  }) as CompactionReport;

describe('a compaction as the browser sees it', () => {
  it('says the count before was an estimate, and the notice shows it with ~', () => {
    const estimated = toCompactionResult(
      report({ tokensBefore: 11_718_438, tokensBeforeEstimated: true }),
      1500,
    );
    expect(estimated.tokensBeforeEstimated).toBe(true);
    expect(autoCompactionNotice(estimated)).toContain('~11,718,438 → 13,900 tokens');
    const exact = toCompactionResult(report({}), 300);
    expect('tokensBeforeEstimated' in exact).toBe(false);
    expect(autoCompactionNotice(exact)).toContain('context 30,000 → 13,900 tokens');
  });
});
