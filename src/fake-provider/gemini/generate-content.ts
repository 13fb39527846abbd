import { fromGemini } from '../../messages/gemini.ts';
import type { GeminiRequestInput } from '../../messages/gemini-schema.ts';
import type { Message } from '../../messages/types.ts';
import { asObject, type ChatTurn, failureResponse, fakeId, runChatTurn, streamPieces } from '../chat-turn.ts';
import type { FakeRoute } from '../server.ts';
import { geminiContextOverflow, geminiError } from './errors.ts';
import { geminiTools } from './tools.ts';

type Answer = Extract<ChatTurn, { type: 'answer' }>;

/** One `GenerateContentResponse`: a candidate with these parts, and usage on the last one. */
function response(
  model: string,
  responseId: string,
  parts: readonly unknown[],
  turn: Answer,
  isLast: boolean,
): Record<string, unknown> {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        ...(isLast ? { finishReason: 'STOP' } : {}),
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: turn.inputTokens,
      ...(isLast ? { candidatesTokenCount: turn.outputTokens } : {}),
      totalTokenCount: turn.inputTokens + (isLast ? turn.outputTokens : 0),
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: turn.inputTokens }],
    },
    modelVersion: model,
    responseId,
  };
}

const functionCalls = (turn: Answer) =>
  turn.toolCalls.map((call) => ({
    functionCall: { id: call.id, name: call.name, args: JSON.parse(call.arguments) as unknown },
  }));

/**
 * Gemini `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`
 * (ai.google.dev, "Generating content"): `{ contents, systemInstruction?, tools? }` → candidates
 * with text and `functionCall` parts and `usageMetadata`; streamed as `data:` events of the same
 * shape. Prompts over the context limit get the real "input token count (N) exceeds the
 * maximum number of tokens allowed (M)" error.
 */
export const geminiGenerateContent: FakeRoute = {
  method: 'POST',
  path: /^\/v1(?:beta)?\/models\/(?<model>[^/:]+):(?<method>generateContent|streamGenerateContent)$/,
  error: geminiError,
  handle(request, { behaviour, params }) {
    const { headers, query } = request;
    if (headers['x-goog-api-key'] === undefined && !query.has('key'))
      return geminiError(403, "Method doesn't allow unregistered callers. Please use API Key.");
    const body = asObject(request.body);
    if (body === undefined) return geminiError(400, 'Invalid JSON payload received.');
    if (!Array.isArray(body.contents) || body.contents.length === 0)
      return geminiError(400, '* GenerateContentRequest.contents: contents is not specified');
    let messages: Message[];
    try {
      messages = fromGemini(body as unknown as GeminiRequestInput);
    } catch (error) {
      return geminiError(
        400,
        `* GenerateContentRequest.contents: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const model = params.model ?? '';
    const stream = params.method === 'streamGenerateContent';
    const turn = runChatTurn(
      { provider: 'gemini', model, messages, tools: geminiTools(body.tools), stream, request },
      behaviour,
      'call_',
    );
    if (turn.type === 'overflow') return geminiContextOverflow(turn.limit, turn.actual);
    if (turn.type === 'failure') return failureResponse(geminiError, turn);
    const responseId = fakeId('');
    if (!stream) {
      const parts = [...(turn.text === '' ? [] : [{ text: turn.text }]), ...functionCalls(turn)];
      return { status: 200, timing: turn.timing, body: response(model, responseId, parts, turn, true) };
    }
    const pieces: unknown[][] = streamPieces(turn.text).map((text) => [{ text }]);
    if (turn.toolCalls.length > 0) pieces.push(functionCalls(turn));
    if (pieces.length === 0) pieces.push([{ text: '' }]);
    const events = pieces.map((parts, index) => ({
      data: JSON.stringify(response(model, responseId, parts, turn, index === pieces.length - 1)),
    }));
    // Without `alt=sse` the API streams one JSON array; the SDKs always ask for SSE.
    if (query.get('alt') !== 'sse')
      return {
        status: 200,
        timing: turn.timing,
        body: events.map((event) => JSON.parse(event.data) as unknown),
      };
    return { status: 200, events, timing: turn.timing };
  },
};
