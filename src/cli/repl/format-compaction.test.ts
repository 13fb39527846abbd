import { describe, expect, it } from 'vitest';
import type { CompactionReport, StageEffect } from '../../compaction/types.ts';
import { compactionLine } from './format-compaction.ts';

const stage = (name: string, effect: Partial<StageEffect>): StageEffect => ({
  stage: name,
  tokensBefore: 0,
  tokensAfter: 0,
  dropped: 0,
  stubbed: 0,
  masked: 0,
  summarized: 0,
  clipped: 0,
  notes: [],
  ...effect,
});

function report(change: Partial<CompactionReport>): CompactionReport {
  return {
    compacted: true,
    cancelled: false,
    mode: 'auto',
    reason: 'tokens 35,375 ≥ 80 % of budget 40,000',
    tokensBefore: 35_375,
    tokensAfter: 9744,
    messagesBefore: 52,
    messagesAfter: 12,
    stages: [],
    fallbacks: [],
    warnings: [],
    ...change,
  } as CompactionReport;
}

describe('compactionLine (seed 000 §4.2 visible events)', () => {
  it('a summary: "41 messages → summary, 35,375 → 9,744 tokens, 0.4 s"', () => {
    expect(
      compactionLine(report({ stages: [stage('summarize', { summarized: 41, dropped: 41 })] }), 412),
    ).toBe('history compacted: 41 messages → summary, 35,375 → 9,744 tokens, 0.4 s');
  });

  it('marks a count that estimated the oldest messages with ~', () => {
    expect(
      compactionLine(
        report({
          tokensBefore: 11_718_438,
          tokensBeforeEstimated: true,
          stages: [stage('summarize', { summarized: 19_994, dropped: 19_994 })],
        }),
        1900,
      ),
    ).toBe('history compacted: 19,994 messages → summary, ~11,718,438 → 9,744 tokens, 1.9 s');
  });

  it('names stubs and masks, and an extractive fallback summary', () => {
    const line = compactionLine(
      report({
        stages: [
          stage('supersede', { stubbed: 5 }),
          stage('mask', { masked: 2 }),
          stage('summarize', { summarized: 12 }),
        ],
        summary: { source: 'extractive' } as NonNullable<CompactionReport['summary']>,
      }),
      2000,
    );
    expect(line).toBe(
      'history compacted: 12 messages → summary, 5 stale tool outputs stubbed, 2 old tool outputs masked (extractive summary), 35,375 → 9,744 tokens, 2.0 s',
    );
  });

  it('says why nothing happened', () => {
    expect(compactionLine(report({ compacted: false, cancelled: true }), 1)).toBe(
      'history not compacted: cancelled by beforeCompact',
    );
    expect(compactionLine(report({ compacted: false, reason: 'nothing to compact' }), 1)).toBe(
      'history not compacted: nothing to compact',
    );
  });
});
