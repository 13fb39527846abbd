import { describe, expect, it } from 'vitest';
import { modelFamilyTokenizer } from './model-family-tokenizer.ts';

describe('modelFamilyTokenizer (MOD-1, TOK-2, TOK-3)', () => {
  it.each([
    ['gpt-4o-2024-08-06', 'openai:o200k_base'],
    ['openai/gpt-4.1-mini', 'openai:o200k_base'],
    ['gpt-5', 'openai:o200k_base'],
    ['o3-mini', 'openai:o200k_base'],
    ['o1', 'openai:o200k_base'],
    ['gpt-oss-120b', 'open:gptoss'],
    ['openai/gpt-oss-20b', 'open:gptoss'],
    ['gpt-4-0613', 'openai:cl100k_base'],
    ['gpt-4-turbo', 'openai:cl100k_base'],
    ['gpt-3.5-turbo', 'openai:cl100k_base'],
    ['claude-3-5-sonnet-latest', 'anthropic:claude'],
    ['gemini-2.5-pro', 'google:gemini'],
    ['gemma3:27b', 'open:gemma3'],
    ['google/gemma-3-27b-it', 'open:gemma3'],
    ['gemma-2-9b-it', 'google:gemini'],
    ['llama3:8b', 'open:llama3'],
    ['meta-llama/Meta-Llama-3-8B-Instruct', 'open:llama3'],
    ['llama3-70b-8192', 'open:llama3'],
    ['llama3.1:8b', 'open:llama3_1'],
    ['meta-llama/Llama-3.3-70B-Instruct', 'open:llama3_1'],
    ['llama-3.2-3b-preview', 'open:llama3_1'],
    ['Qwen/Qwen3-32B', 'open:qwen3'],
    ['qwen2.5-coder:7b', 'open:qwen3'],
    ['deepseek-chat', 'open:deepseek_v3'],
    ['deepseek-ai/DeepSeek-R1', 'open:deepseek_v3'],
    ['deepseek-v3.1', 'open:deepseek_v3'],
    ['deepseek-coder-6.7b', 'estimate:o200k_base'],
    ['mistral-large-latest', 'estimate:cl100k_base'],
    ['llama-4-scout', 'chars/4'],
    ['omni-7b', 'chars/4'],
  ])('%s → %s', (id, tokenizer) => {
    expect(modelFamilyTokenizer(id)).toBe(tokenizer);
  });
});
