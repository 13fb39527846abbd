/**
 * Gemini `contents` → neutral messages (MSG-2); the way back is in `to-gemini.ts`. Pure; no
 * SDK import.
 */
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { base64ByteLength, UNKNOWN_FILE_TYPE } from './attachment-data.ts';
import { contentHash } from './content-hash.ts';
import {
  GEMINI_DATA_FIELDS,
  GEMINI_NAMES,
  type GeminiRequestInput,
  geminiRequestSchema,
  type ParsedGeminiPart,
} from './gemini-schema.ts';
import { type NormalizeOptions, normalizeConverted } from './normalize.ts';
import { extraKeys, parseProviderInput } from './provider-input.ts';
import { markersOf, type OpaqueItem, opaqueMarker, withMarkers } from './provider-metadata.ts';
import type {
  AttachmentPart,
  JsonValue,
  Message,
  MessageInput,
  Part,
  TextPart,
  ToolResultPart,
} from './types.ts';

export type {
  GeminiBlob,
  GeminiContent,
  GeminiContentInput,
  GeminiFileData,
  GeminiFunctionCall,
  GeminiFunctionResponse,
  GeminiPart,
  GeminiRequest,
  GeminiRequestInput,
} from './gemini-schema.ts';
export { toGemini } from './to-gemini.ts';

const P = 'gemini';
type Json = Record<string, unknown>;
type JsonObject = { [key: string]: JsonValue };

const PART_KEYS = new Set<string>([...GEMINI_DATA_FIELDS, 'thought', 'thoughtSignature']);
const CALL_KEYS = new Set(['id', 'name', 'args']);
const RESPONSE_KEYS = new Set(['id', 'name', 'response', 'parts']);

/** Id for a call or result without one (older API versions): stable for its position and name. */
const generatedId = (turn: number, part: number, name: string): string =>
  `gemini_${contentHash(`${turn}\u0000${part}\u0000${name}`)}`;

function dataField(part: ParsedGeminiPart, where: string): (typeof GEMINI_DATA_FIELDS)[number] {
  const present = GEMINI_DATA_FIELDS.filter((field) => part[field] !== undefined);
  if (present.length === 1) return present[0] as (typeof GEMINI_DATA_FIELDS)[number];
  throw new ChatfoldError(
    'E_INVALID_MESSAGE',
    present.length === 0
      ? `${where}: expected one of ${GEMINI_DATA_FIELDS.join(', ')}, received a part with none of them`
      : `${where}: a Gemini part holds exactly one of ${GEMINI_DATA_FIELDS.join(', ')}, received ${present.join(' and ')}`,
    { where },
  );
}

function attachment(source: {
  readonly inlineData?: Json | undefined;
  readonly fileData?: Json | undefined;
}): AttachmentPart {
  if (source.inlineData !== undefined) {
    const { mimeType, data } = source.inlineData as { mimeType: string; data: string };
    return {
      type: 'attachment',
      kind: mimeType.startsWith('image/') ? 'image' : 'file',
      mediaType: mimeType,
      data,
      size: base64ByteLength(data),
      ...withMarkers(P, { blobExtra: extraKeys(source.inlineData, new Set(['mimeType', 'data'])) }),
    };
  }
  const { mimeType, fileUri } = source.fileData as { mimeType?: string; fileUri: string };
  return {
    type: 'attachment',
    kind: mimeType?.startsWith('image/') ? 'image' : 'file',
    mediaType: mimeType ?? UNKNOWN_FILE_TYPE,
    url: fileUri,
    ...withMarkers(P, {
      noMimeType: mimeType === undefined ? true : undefined,
      blobExtra: extraKeys(source.fileData as Json, new Set(['mimeType', 'fileUri'])),
    }),
  };
}

/** Adds part-level markers (signature, extra keys) to a converted part. */
function marked<T extends Part>(part: T, markers: Record<string, JsonValue | undefined>): T {
  const existing = markersOf(part, P);
  const merged = withMarkers(P, { ...existing, ...markers });
  return { ...part, ...merged };
}

/**
 * Text of a function response: `{ output: "…" }` and `{ error: "…" }` (the keys the API
 * reference names) give their string, anything else its JSON.
 */
function responseText(response: JsonObject): { text: string; shape: 'output' | 'error' | 'object' } {
  const keys = Object.keys(response);
  const only = keys.length === 1 ? keys[0] : undefined;
  if ((only === 'output' || only === 'error') && typeof response[only] === 'string') {
    return { text: response[only] as string, shape: only };
  }
  return { text: JSON.stringify(response), shape: 'object' };
}

interface ReadState {
  /** Calls not answered yet, oldest first (answers without ids match the first of their name). */
  pending: { id: string; name: string }[];
}

function resultFromResponse(
  part: ParsedGeminiPart,
  turn: number,
  index: number,
  role: string,
  state: ReadState,
): ToolResultPart {
  const response = part.functionResponse as Json & {
    id?: string;
    name: string;
    response: JsonObject;
    parts?: Json[];
  };
  const match =
    response.id !== undefined
      ? state.pending.find((call) => call.id === response.id)
      : state.pending.find((call) => call.name === response.name);
  state.pending = state.pending.filter((call) => call !== match);
  const { text, shape } = responseText(response.response);
  const content: (TextPart | AttachmentPart)[] = [{ type: 'text', text }];
  for (const inner of response.parts ?? []) content.push(attachment(inner));
  return {
    type: 'tool-result',
    callId: response.id ?? match?.id ?? generatedId(turn, index, response.name),
    toolName: response.name,
    content,
    ...(shape === 'error' ? { isError: true } : {}),
    ...withMarkers(P, {
      response: shape,
      generatedId: response.id === undefined ? true : undefined,
      role: role === 'function' ? 'function' : undefined,
      extra: extraKeys(part, PART_KEYS),
      responseExtra: extraKeys(response, RESPONSE_KEYS),
    }),
  };
}

function modelPart(
  part: ParsedGeminiPart,
  field: string,
  turn: number,
  index: number,
  state: ReadState,
): Part {
  const common = { thoughtSignature: part.thoughtSignature, extra: extraKeys(part, PART_KEYS) };
  if (field === 'functionCall') {
    const call = part.functionCall as Json & { id?: string; name: string; args?: JsonObject };
    const id = call.id ?? generatedId(turn, index, call.name);
    state.pending.push({ id, name: call.name });
    return {
      type: 'tool-call',
      id,
      name: call.name,
      arguments: JSON.stringify(call.args ?? {}),
      ...withMarkers(P, {
        ...common,
        generatedId: call.id === undefined ? true : undefined,
        noArgs: call.args === undefined ? true : undefined,
        callExtra: extraKeys(call, CALL_KEYS),
      }),
    };
  }
  if (field === 'text') {
    const text = part.text as string;
    return part.thought === true
      ? { type: 'reasoning', text, ...withMarkers(P, common) }
      : {
          type: 'text',
          text,
          ...withMarkers(P, { ...common, thought: part.thought === false ? false : undefined }),
        };
  }
  return marked(attachment(part), { ...common, thought: part.thought });
}

/**
 * Converts a Gemini request (`systemInstruction` + `contents`) to neutral messages (MSG-2).
 *
 * - `model` turns become assistant messages; `thought: true` text becomes reasoning; every
 *   `thoughtSignature` stays on the part it came with.
 * - `functionCall.args` becomes `arguments` JSON text. Calls without an `id` (older API
 *   versions) get a deterministic one, and a `functionResponse` without an `id` answers the
 *   earliest unanswered call of the same name, so parallel calls pair up in order.
 * - A user (or `function`) turn's `functionResponse` parts become one tool message; other parts
 *   a user message after it. `{ output: "…" }` / `{ error: "…" }` responses become their text
 *   (the latter with `isError`), any other response its JSON text.
 * - `executableCode` / `codeExecutionResult` parts are carried verbatim.
 *
 * @throws ChatfoldError `E_UNKNOWN_ROLE` or `E_INVALID_MESSAGE` naming the path, e.g. `contents[2].parts[0]`.
 * @example
 * const messages = fromGemini({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
 */
export function fromGemini(request: GeminiRequestInput, options: NormalizeOptions = {}): Message[] {
  const parsed = parseProviderInput(geminiRequestSchema, request, GEMINI_NAMES);
  const out: MessageInput[] = [];
  const system = parsed.systemInstruction;
  if (system !== undefined) {
    const parts =
      typeof system === 'string'
        ? [{ type: 'text' as const, text: system }]
        : system.parts.map((part, i): TextPart => {
            if (dataField(part, `systemInstruction.parts[${i}]`) !== 'text') {
              throw new ChatfoldError(
                'E_INVALID_MESSAGE',
                `systemInstruction.parts[${i}]: expected a text part`,
                {
                  where: `systemInstruction.parts[${i}]`,
                },
              );
            }
            return {
              type: 'text',
              text: part.text as string,
              ...withMarkers(P, { extra: extraKeys(part, PART_KEYS) }),
            };
          });
    out.push({
      role: 'system',
      parts,
      ...withMarkers(P, {
        systemInstruction: typeof system === 'string' ? 'string' : undefined,
        instructionRole: typeof system === 'string' ? undefined : system.role,
        extra: typeof system === 'string' ? undefined : extraKeys(system, new Set(['role', 'parts'])),
      }),
    });
  }
  const state: ReadState = { pending: [] };
  parsed.contents.forEach((turn, t) => {
    const role = turn.role;
    const turnMarkers = {
      role: role === undefined ? 'absent' : role === 'function' ? 'function' : undefined,
      extra: extraKeys(turn, new Set(['role', 'parts'])),
    };
    let current:
      | { role: MessageInput['role']; parts: Part[]; opaque: OpaqueItem[]; first: boolean }
      | undefined;
    const messages: (typeof current & object)[] = [];
    turn.parts.forEach((part, p) => {
      const where = `contents[${t}].parts[${p}]`;
      const field = dataField(part, where);
      const kind = role === 'model' ? 'assistant' : field === 'functionResponse' ? 'tool' : 'user';
      if (current?.role !== kind) {
        current = { role: kind, parts: [], opaque: [], first: messages.length === 0 };
        messages.push(current);
      }
      if (field === 'executableCode' || field === 'codeExecutionResult') {
        current.opaque.push({
          index: current.parts.length + current.opaque.length,
          value: part as JsonValue,
        });
      } else if (role === 'model') {
        current.parts.push(modelPart(part, field, t, p, state));
      } else if (field === 'functionResponse') {
        current.parts.push(resultFromResponse(part, t, p, role ?? 'user', state));
      } else if (field === 'text') {
        current.parts.push({
          type: 'text',
          text: part.text as string,
          ...withMarkers(P, { extra: extraKeys(part, PART_KEYS), thoughtSignature: part.thoughtSignature }),
        });
      } else {
        current.parts.push(
          marked(attachment(part), {
            extra: extraKeys(part, PART_KEYS),
            thoughtSignature: part.thoughtSignature,
          }),
        );
      }
    });
    if (messages.length === 0)
      messages.push({ role: role === 'model' ? 'assistant' : 'user', parts: [], opaque: [], first: true });
    for (const message of messages) {
      out.push({
        role: message.role,
        parts: message.parts,
        ...withMarkers(P, { ...(message.first ? turnMarkers : {}), opaque: opaqueMarker(message.opaque) }),
      });
    }
  });
  return normalizeConverted(out, options);
}
