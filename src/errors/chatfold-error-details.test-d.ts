import { describe, expectTypeOf, it } from 'vitest';
import { ChatfoldError } from './chatfold-error.ts';

describe('ChatfoldError details are typed per code', () => {
  it('narrows details with hasCode', () => {
    const error: unknown = new ChatfoldError('E_CONTEXT_OVERFLOW', 'too long', {
      provider: 'openai',
      limit: 8000,
    });
    if (ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')) {
      expectTypeOf(error.code).toEqualTypeOf<'E_CONTEXT_OVERFLOW'>();
      expectTypeOf(error.details.limit).toEqualTypeOf<number | undefined>();
      expectTypeOf(error.details.provider).toEqualTypeOf<string | undefined>();
    }
    if (ChatfoldError.hasCode(error, 'E_BUDGET_IMPOSSIBLE')) {
      expectTypeOf(error.details.systemPrompt).toEqualTypeOf<number | undefined>();
    }
  });

  it('checks the details a code takes when the error is built', () => {
    // @ts-expect-error limit is a number of tokens
    new ChatfoldError('E_CONTEXT_OVERFLOW', 'too long', { limit: '8000' });
    new ChatfoldError('E_AGENT_FILE', 'bad file', { file: 'a.yaml', line: 3, column: 5, key: 'model' });
  });
});
