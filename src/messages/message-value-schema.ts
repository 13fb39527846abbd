import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { assertMessage } from './check-messages.ts';
import type { Message } from './types.ts';

const FN = 'message-value-schema';

/**
 * A neutral message inside a persisted record (a plan's replacement, a snapshot's head), for
 * zod schemas of those records. The check is `assertMessage`'s hand-written pass, not zod's
 * `messageSchema` (4–16 µs a message), and the value is passed through as it is: a message
 * keeps its object identity, which counts and caches are keyed by.
 *
 * An issue names the path inside the message (`parts[0].text: expected string, received
 * number`); zod adds the path of the message in the record.
 */
export const messageValueSchema = z.custom<Message>().superRefine((value, context) => {
  try {
    assertMessage(value, undefined, FN);
  } catch (error) {
    if (!ChatfoldError.isInstance(error)) throw error;
    context.addIssue({ code: 'custom', message: messageProblem(error), input: value });
  }
});

/** The check's error without the function name and the `message` root: `parts[0].text: …`. */
function messageProblem(error: ChatfoldError): string {
  const text = error.message.startsWith(`${FN}: `) ? error.message.slice(FN.length + 2) : error.message;
  if (text.startsWith('message.')) return text.slice('message.'.length);
  if (text.startsWith('message: ')) return text.slice('message: '.length);
  return text;
}
