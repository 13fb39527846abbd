import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { importPeer } from '../errors/import-peer.ts';
import { formatCliError } from './diagnostics.ts';

describe('formatCliError', () => {
  it('a missing optional package: the one command that fixes it, in the CLI’s words', async () => {
    const error = await importPeer(
      '@ai-sdk/openai-compatible',
      () => Promise.reject(new Error("Cannot find package '@ai-sdk/openai-compatible'")),
      'the openai-compatible provider',
    ).catch((caught: unknown) => caught);
    expect(formatCliError(error)).toBe(
      'chatfold: the openai-compatible provider needs the optional package @ai-sdk/openai-compatible: npm install @ai-sdk/openai-compatible [E_MISSING_DEPENDENCY]\n',
    );
  });

  it('other chatfold errors keep their message and code', () => {
    expect(formatCliError(new ChatfoldError('E_AGENT_FILE', 'a.yaml:1:1 name: expected a name', {}))).toBe(
      'chatfold: a.yaml:1:1 name: expected a name [E_AGENT_FILE]\n',
    );
  });
});
