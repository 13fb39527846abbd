import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../messages/openai.ts';
import { EMPTY_LEDGER } from '../summarize/ledger.ts';
import { buildSummaryPrompt } from '../summarize/prompts.ts';
import { cannedSummary, isSummaryRequest } from './default-respond.ts';

const summaryPrompt = (variant: 'general' | 'code') => {
  const { system, user } = buildSummaryPrompt({
    messages: fromOpenAI([{ role: 'user', content: 'Plan the trip' }]),
    ledger: EMPTY_LEDGER,
    variant,
    maxTokens: 300,
  });
  return fromOpenAI([
    { role: 'system', content: system },
    { role: 'user', content: user },
  ]);
};

describe('the fake model’s default answer', () => {
  it('recognises chatfold’s summarization prompt and answers with its sections', () => {
    for (const variant of ['general', 'code'] as const) {
      const messages = summaryPrompt(variant);
      expect(isSummaryRequest(messages)).toBe(true);
      const headings = cannedSummary(messages).match(/^## .+$/gm);
      const asked = messages.at(-1)?.parts[0];
      const expected = asked?.type === 'text' ? asked.text.match(/^## .+$/gm) : null;
      expect(headings).toEqual(expected);
      expect(headings?.length).toBeGreaterThanOrEqual(5);
    }
  });

  it('does not take a user who pastes one of the tags for a summarizer', () => {
    expect(
      isSummaryRequest(fromOpenAI([{ role: 'user', content: 'what is <new-messages>x</new-messages>?' }])),
    ).toBe(false);
    expect(isSummaryRequest(fromOpenAI([{ role: 'user', content: 'Output only the summary.' }]))).toBe(false);
  });
});
