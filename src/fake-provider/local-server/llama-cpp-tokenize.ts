import { asObject } from '../chat-turn.ts';
import type { FakeRoute, RecordedRequest } from '../server.ts';
import { FAKE_BOS_ID, fakePieces, fakeTokenId } from './fake-tokenizer.ts';
import { llamaCppError } from './llama-cpp-errors.ts';

/** Tokens and their pieces of a llama.cpp `/tokenize` body, honouring `add_special`. */
function tokenize(
  request: RecordedRequest,
  body: Record<string, unknown>,
  countTokens?: (r: RecordedRequest) => number,
) {
  const content = body.content;
  // A prompt may mix text with token ids (`[12, "text", 34]`), as llama.cpp's tokenize_mixed reads it.
  const parts = typeof content === 'string' ? [content] : Array.isArray(content) ? content : [];
  const tokens: { id: number; piece: string }[] = [];
  if (body.add_special === true) tokens.push({ id: FAKE_BOS_ID, piece: '<|begin_of_text|>' });
  for (const part of parts) {
    if (typeof part === 'number') tokens.push({ id: part, piece: '' });
    else if (typeof part === 'string')
      for (const piece of fakePieces(part)) tokens.push({ id: fakeTokenId(piece), piece });
  }
  if (countTokens === undefined) return tokens;
  // A configured count decides the length (tests of the client's arithmetic).
  return Array.from({ length: countTokens(request) }, (_, i) => tokens[i] ?? { id: 256 + i, piece: '' });
}

/**
 * llama.cpp server `POST /tokenize` (tools/server README): body `{ content, add_special?,
 * parse_special?, with_pieces? }` → `{ tokens: [ids] }`, or `{ tokens: [{ id, piece }] }` with
 * `with_pieces`. Like the real server, a body without `content` gets `{ tokens: [] }`.
 * Tokenizes with the fake word-level tokenizer (or `countTokens` when configured).
 */
export const llamaCppTokenize: FakeRoute = {
  method: 'POST',
  path: /^\/tokenize$/,
  error: llamaCppError,
  handle(request, { behaviour }) {
    const body = asObject(request.body);
    if (body === undefined) return llamaCppError(400, 'the request body must be a JSON object');
    if (body.content !== undefined && typeof body.content !== 'string' && !Array.isArray(body.content))
      return llamaCppError(400, '"content" must be a string or an array of strings and token ids');
    const tokens = tokenize(request, body, behaviour.countTokens);
    return {
      status: 200,
      body: { tokens: body.with_pieces === true ? tokens : tokens.map((token) => token.id) },
    };
  },
};
