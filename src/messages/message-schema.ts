/**
 * The neutral message model (MSG-1) as a zod schema: the one definition of what a `Message`
 * and a `MessageInput` look like at run time. `assertMessages` checks the same rules with a
 * hand-written pass (zod costs 4–16 µs per message, too much for a check that runs on every
 * call) and uses this schema to word the error when a message fails; a property test keeps
 * the two in agreement.
 */
import { z } from 'zod';
import { ROLES } from './types.ts';

/** A JSON value; `undefined` is accepted as an object value (JSON leaves the key out). */
const jsonValue: z.ZodType = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), z.union([jsonValue, z.undefined()])),
  ]),
);

const jsonOrUndefined = z.union([jsonValue, z.undefined()]);

/** Keys the schema does not name must hold JSON: stores write whole messages as JSON. */
const loose = <Shape extends z.ZodRawShape>(shape: Shape) => z.object(shape).catchall(jsonOrUndefined);

const providerMetadata = z.record(z.string(), z.record(z.string(), jsonOrUndefined));
const common = { providerMetadata: providerMetadata.optional() };

const textPart = loose({ type: z.literal('text'), text: z.string(), ...common });
const attachmentPart = loose({
  type: z.literal('attachment'),
  kind: z.enum(['image', 'file']),
  mediaType: z.string(),
  filename: z.string().optional(),
  size: z.number().optional(),
  data: z.string().optional(),
  url: z.string().optional(),
  ...common,
});
const toolCallPart = loose({
  type: z.literal('tool-call'),
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  ...common,
});
const toolResultPart = loose({
  type: z.literal('tool-result'),
  callId: z.string(),
  toolName: z.string().optional(),
  content: z.array(z.discriminatedUnion('type', [textPart, attachmentPart])),
  isError: z.boolean().optional(),
  ...common,
});
const reasoningPart = loose({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.string().optional(),
  redactedData: z.string().optional(),
  ...common,
});

/** One `Part`. */
export const partSchema = z.discriminatedUnion('type', [
  textPart,
  attachmentPart,
  toolCallPart,
  toolResultPart,
  reasoningPart,
]);

const usage = loose({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
});

const messageShape = {
  role: z.enum(ROLES as readonly ['system', 'user', 'assistant', 'tool']),
  parts: z.array(partSchema),
  name: z.string().optional(),
  usage: usage.optional(),
  pinned: z.boolean().optional(),
  metadata: z.record(z.string(), jsonOrUndefined).optional(),
  providerMetadata: providerMetadata.optional(),
};

/**
 * A neutral `Message` (MSG-1): what every function taking messages accepts. Unknown keys are
 * allowed when they hold JSON.
 *
 * @example
 * const messages = z.array(messageSchema).parse(await request.json());
 */
export const messageSchema = loose({ id: z.string(), createdAt: z.string(), ...messageShape });

/** A `MessageInput`: a message whose `id` and `createdAt` may be missing (`normalizeMessages`). */
export const messageInputSchema = loose({
  id: z.string().optional(),
  createdAt: z.string().optional(),
  ...messageShape,
});
