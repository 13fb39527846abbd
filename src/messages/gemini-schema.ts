/**
 * Gemini `generateContent` request shapes (REST `Content` / `Part`, camelCase as the API and
 * `@google/genai` write them): the public types and the zod schema `fromGemini` checks input
 * against. Keys the schema does not name (`videoMetadata`, `willContinue`, …) are accepted when
 * they hold JSON and ride along verbatim.
 */
import { z } from 'zod';
import { extraValue, looseObject, type ProviderInputNames } from './provider-input.ts';
import type { JsonValue } from './types.ts';

/** `{ mimeType, data }` (base64). */
export interface GeminiBlob {
  mimeType: string;
  data: string;
}
/** `{ mimeType?, fileUri }`. */
export interface GeminiFileData {
  mimeType?: string;
  fileUri: string;
}
/** A function call; `id` exists in newer API versions (Gemini 3 always sends one). */
export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args?: { [key: string]: JsonValue };
}
/** A function result; `response` uses `output` / `error` keys by convention. */
export interface GeminiFunctionResponse {
  id?: string;
  name: string;
  response: { [key: string]: JsonValue };
  /** Multimodal results (images, files) in newer API versions. */
  parts?: { inlineData?: GeminiBlob; fileData?: GeminiFileData }[];
}
/** A Gemini `Part`: exactly one of the data fields, plus thought markers. */
export interface GeminiPart {
  text?: string;
  /** The part is a thought summary (reasoning). */
  thought?: boolean;
  /** Opaque signature that must be sent back with the part it came on. */
  thoughtSignature?: string;
  inlineData?: GeminiBlob;
  fileData?: GeminiFileData;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
}
/** A Gemini `Content`: a role and its parts (`function` is the older role for function results). */
export interface GeminiContent {
  role?: 'user' | 'model' | 'function';
  parts: GeminiPart[];
}
/** The parts of a `generateContent` request chatfold converts. */
export interface GeminiRequest {
  systemInstruction?: string | GeminiContent;
  contents: GeminiContent[];
}
/**
 * What `fromGemini` accepts: a request whose contents hold any parts (the official SDK's
 * `Content[]` fits without a cast; `executableCode` / `codeExecutionResult` parts are carried
 * verbatim); other request keys such as `tools` are ignored. Parts are checked at run time.
 */
export interface GeminiRequestInput {
  readonly systemInstruction?: string | GeminiContentInput | undefined;
  readonly contents: readonly GeminiContentInput[];
}
/** A `Content` as `fromGemini` accepts it. */
export interface GeminiContentInput {
  readonly role?: string | undefined;
  readonly parts?: readonly (GeminiPart | object)[] | undefined;
}

/** How Gemini input is named in error messages. */
export const GEMINI_NAMES: ProviderInputNames = {
  root: '',
  partNoun: 'Gemini part',
  roles: ['user', 'model', 'function'],
};

/** The fields of which a part holds exactly one. */
export const GEMINI_DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
] as const;

const blob = looseObject({ mimeType: z.string(), data: z.string() });
const fileData = looseObject({ mimeType: z.string().optional(), fileUri: z.string() });
const object = z.record(z.string(), extraValue);

const part = looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: blob.optional(),
  fileData: fileData.optional(),
  functionCall: looseObject({
    id: z.string().optional(),
    name: z.string(),
    args: object.optional(),
  }).optional(),
  functionResponse: looseObject({
    id: z.string().optional(),
    name: z.string(),
    response: object,
    parts: z.array(looseObject({ inlineData: blob.optional(), fileData: fileData.optional() })).optional(),
  }).optional(),
  executableCode: z.json().optional(),
  codeExecutionResult: z.json().optional(),
});

const content = looseObject({ role: z.enum(['user', 'model', 'function']).optional(), parts: z.array(part) });

/** Schema of the `systemInstruction` and `contents` of a `generateContent` request. */
export const geminiRequestSchema = z.looseObject({
  systemInstruction: z
    .union([z.string(), looseObject({ role: z.string().optional(), parts: z.array(part) })])
    .optional(),
  contents: z.array(content),
});

/** A part as the schema returns it. */
export type ParsedGeminiPart = z.output<typeof part>;
