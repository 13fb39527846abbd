import { describe, expect, it } from 'vitest';
import { resolveModel } from '../models/resolve-model.ts';
import { counterForModel } from './counter-for-model.ts';

describe('counterForModel (TOK-3)', () => {
  it("loads an open model's own tokenizer for every open:* family", async () => {
    const deepseek = await counterForModel(resolveModel('deepseek-chat'));
    expect(deepseek).toMatchObject({ tokenizer: 'open:deepseek_v3', accuracy: 'exact' });
    const gptOss = await counterForModel(resolveModel('gpt-oss:20b'));
    expect(gptOss).toMatchObject({ tokenizer: 'open:gptoss', accuracy: 'exact' });
  });

  it('uses the shared counter for other tokenizers', async () => {
    expect((await counterForModel(resolveModel('gpt-4o'))).tokenizer).toBe('openai:o200k_base');
  });
});
