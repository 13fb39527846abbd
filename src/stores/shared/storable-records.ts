/**
 * What a store accepts (issue 24 §2): a store is where a value checked once must stay the value
 * read later, by every process, forever. Each record's message is read once into the entry
 * check's frozen copy, and the stored text is made from that copy; after writing, a store reads
 * its rows back and checks them with {@link readBackMessage}, so a row it could not read back is
 * never kept (the write is rolled back, or never made).
 */
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { assertMessage, readMessageList } from '../../messages/check-messages.ts';
import type { Message } from '../../messages/types.ts';
import type { AppendRecord } from '../types.ts';

/**
 * The records of an append with every field read once and each message checked (a copy a
 * proxy cannot change afterwards). Messages a session made (`normalizeMessages` output) pass
 * at no cost.
 *
 * @param kind The store, named in errors (`sqlite store`).
 * @param records What the caller passed to `append`.
 * @throws ChatfoldError `E_INVALID_MESSAGES`, `E_INVALID_MESSAGE`, `E_UNKNOWN_ROLE`,
 *   `E_NESTING_TOO_DEEP`, `E_MESSAGE_TOO_LARGE` for a record whose message is not one.
 */
export function storableRecords(kind: string, records: readonly AppendRecord[]): AppendRecord[] {
  const fn = `${kind}: append`;
  return readMessageList(records, fn).map((item, index) => {
    const record = (typeof item === 'object' && item !== null ? { ...item } : {}) as Partial<AppendRecord>;
    const message = assertMessage(record.message, index, fn);
    return {
      message,
      ...(typeof record.inputTokens === 'number' ? { inputTokens: record.inputTokens } : {}),
      ...(typeof record.outputTokens === 'number' ? { outputTokens: record.outputTokens } : {}),
      ...(typeof record.tokenEstimate === 'number' ? { tokenEstimate: record.tokenEstimate } : {}),
      ...(typeof record.tokenizer === 'string' ? { tokenizer: record.tokenizer } : {}),
    };
  });
}

/**
 * A stored message's JSON as a later read gets it, checked: the read-back a store does after
 * writing, before it commits.
 *
 * @param kind The store, named in errors.
 * @param content The row's JSON text as read back.
 * @param expected The text written, when the store can compare (the database must not change it).
 * @throws ChatfoldError `E_STORE` when the row does not read back as the message written.
 */
export function readBackMessage(kind: string, content: string, expected?: string): Message {
  const fail = (reason: string, cause?: unknown): ChatfoldError =>
    new ChatfoldError(
      'E_STORE',
      `${kind}: append refused: a row did not read back as the message written (${reason}); nothing was stored`,
      { operation: 'append' },
      cause === undefined ? undefined : { cause },
    );
  if (expected !== undefined && content !== expected) throw fail('the stored text differs');
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (error) {
    throw fail('not JSON', error);
  }
  return checkReadBack(kind, parsed, fail);
}

/**
 * A stored message as a later read gets it (already parsed), checked; see {@link readBackMessage}.
 *
 * @throws ChatfoldError `E_STORE` when it is not a message.
 */
export function readBackParsed(kind: string, parsed: unknown): Message {
  return checkReadBack(
    kind,
    parsed,
    (reason, cause) =>
      new ChatfoldError(
        'E_STORE',
        `${kind}: append refused: a row did not read back as the message written (${reason}); nothing more was stored`,
        { operation: 'append' },
        cause === undefined ? undefined : { cause },
      ),
  );
}

function checkReadBack(
  kind: string,
  parsed: unknown,
  fail: (reason: string, cause?: unknown) => ChatfoldError,
): Message {
  try {
    return assertMessage(parsed, undefined, `${kind}: read back`);
  } catch (error) {
    throw fail(ChatfoldError.isInstance(error) ? error.message : 'not a message', error);
  }
}
