import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAgentFile } from '../../src/agent/agent-file/find-agents.ts';
import { parseAgentFile } from '../../src/agent/agent-file/parse-agent-file.ts';

// Issue 18 item 2: the design documents' example agent files, kept in examples/agents/designs/ (seed 004 → context-sprint, seed 000 → dsl-history, seed 003 → local-models)
// as the documents write them (seed 004's three YAML files unchanged), load and mean what the
// documents say.

const EXAMPLES = new URL('../../examples/agents/', import.meta.url).pathname;

const load = (file: string) => loadAgentFile(path.join(EXAMPLES, file));

describe('the documents’ agent files load as written', () => {
  it('seed 004: assistant — N = 30, K = 128,000, 6 recent messages, auto summarize; no model (given on the command line)', async () => {
    const { file } = await load('designs/context-sprint/assistant.yaml');
    expect(file).toEqual({
      name: 'assistant',
      context: {
        autoSummarize: true,
        maxMessagesBeforeSummary: 30,
        maxTokensBeforeSummary: 128_000,
        minRecentMessages: 6,
      },
    });
  });

  it('seed 004: quick_assistant and researcher — their own N and K', async () => {
    expect((await load('designs/context-sprint/quick_assistant.yaml')).file).toEqual({
      name: 'quick_assistant',
      context: { maxMessagesBeforeSummary: 15, maxTokensBeforeSummary: 32_000 },
    });
    expect((await load('designs/context-sprint/researcher.yaml')).file).toEqual({
      name: 'researcher',
      context: { maxMessagesBeforeSummary: 50, maxTokensBeforeSummary: 180_000 },
    });
  });

  it('seed 000 §3.3: the code reviewer — explicit 200,000-token window, history summarize, instructions from a file', async () => {
    const loaded = await load('designs/dsl-history/code_reviewer.yaml');
    expect(loaded.file).toEqual({
      name: 'code_reviewer',
      model: { provider: 'anthropic', name: 'claude-sonnet', maxInputTokens: 200_000 },
      instructions: { file: '../../prompts/code_review_prompt.md' },
      tools: ['read_file', 'list_directory'],
      history: 'summarize',
    });
    expect(loaded.instructions).toMatch(/^You review code\./);
  });

  it('seed 003: the local assistant — 32,000-token window, compaction at 28,000, truncation keeping 10', async () => {
    expect((await load('designs/local-models/local_assistant.yaml')).file).toEqual({
      name: 'local_assistant',
      model: {
        provider: 'openai-compatible',
        name: 'qwen2.5-32b',
        baseURL: 'http://localhost:1234/v1',
        maxInputTokens: 32_000,
      },
      context: { policy: 'local-truncation', maxTokensBeforeSummary: 28_000, minRecentMessages: 10 },
    });
  });

  it('seed 004 scenario 5: the two files without a name take their file names', () => {
    const quick = parseAgentFile(
      'context:\n  max_messages_before_summary: 15\n  max_tokens_before_summary: 32000\n',
      'agents/quick.yaml',
    );
    const researcher = parseAgentFile(
      'context:\n  max_messages_before_summary: 50\n  max_tokens_before_summary: 180000\n',
      'agents/researcher.yaml',
    );
    expect(quick).toEqual({
      name: 'quick',
      context: { maxMessagesBeforeSummary: 15, maxTokensBeforeSummary: 32_000 },
    });
    expect(researcher.name).toBe('researcher');
  });
});
