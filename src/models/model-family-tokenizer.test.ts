import { describe, expect, it } from 'vitest';
import { modelFamilyTokenizer } from './model-family-tokenizer.ts';

describe('modelFamilyTokenizer (MOD-1, TOK-2, TOK-3)', () => {
  it.each([
    ['gpt-4o-2024-08-06', 'openai:o200k_base'],
    ['openai/gpt-4.1-mini', 'openai:o200k_base'],
    ['gpt-5', 'openai:o200k_base'],
    ['o3-mini', 'openai:o200k_base'],
    ['o1', 'openai:o200k_base'],
    ['gpt-oss-120b', 'openai:o200k_base'],
    ['gpt-4-0613', 'openai:cl100k_base'],
    ['gpt-4-turbo', 'openai:cl100k_base'],
    ['gpt-3.5-turbo', 'openai:cl100k_base'],
    ['claude-3-5-sonnet-latest', 'anthropic:claude'],
    ['gemini-2.5-pro', 'google:gemini'],
    ['gemma3:27b', 'google:gemini'],
    ['llama3.1:8b', 'open:llama3'],
    ['meta-llama/Llama-3.3-70B-Instruct', 'open:llama3'],
    ['Qwen/Qwen3-32B', 'open:qwen3'],
    ['qwen2.5-coder:7b', 'open:qwen3'],
    ['deepseek-chat', 'estimate:o200k_base'],
    ['mistral-large-latest', 'estimate:cl100k_base'],
    ['llama-4-scout', 'chars/4'],
    ['omni-7b', 'chars/4'],
  ])('%s → %s', (id, tokenizer) => {
    expect(modelFamilyTokenizer(id)).toBe(tokenizer);
  });
});
