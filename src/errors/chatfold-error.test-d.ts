// Type tests of ChatfoldError, as users import it (`chatfold`).
import { ChatfoldError, type ChatfoldErrorCode } from 'chatfold';
import { describe, expectTypeOf, it } from 'vitest';

describe('ChatfoldError', () => {
  it('isInstance narrows an unknown error to a ChatfoldError', () => {
    const error: unknown = new Error('x');
    if (ChatfoldError.isInstance(error)) {
      expectTypeOf(error).toEqualTypeOf<ChatfoldError>();
      expectTypeOf(error.code).toEqualTypeOf<ChatfoldErrorCode>();
      expectTypeOf(error).toExtend<Error>();
    } else {
      expectTypeOf(error).toBeUnknown();
    }
  });

  it('hasCode narrows to that code, and takes only known codes', () => {
    const error: unknown = undefined;
    if (ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')) {
      expectTypeOf(error).toEqualTypeOf<ChatfoldError<'E_CONTEXT_OVERFLOW'>>();
      expectTypeOf(error).toExtend<ChatfoldError>();
    }
    // @ts-expect-error not a chatfold code
    ChatfoldError.hasCode(error, 'E_NOPE');
  });

  it('codes are a closed union of E_ strings', () => {
    expectTypeOf<ChatfoldErrorCode>().toExtend<`E_${string}`>();
    expectTypeOf<'E_BUDGET_IMPOSSIBLE'>().toExtend<ChatfoldErrorCode>();
    expectTypeOf<'E_INVALID_OPTIONS'>().toExtend<ChatfoldErrorCode>();
    expectTypeOf<string>().not.toExtend<ChatfoldErrorCode>();
    // @ts-expect-error not a chatfold code
    new ChatfoldError('E_NOPE', 'message');
  });
});
