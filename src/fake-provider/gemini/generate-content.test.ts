import { ApiError, GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProvider } from '../index.ts';

let server: FakeProviderServer;
let genai: GoogleGenAI;
beforeAll(async () => {
  server = await startFakeProvider({ contextLimit: { 'gemini-tiny': 30 } });
  genai = new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl: server.url } });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

describe('fake Gemini generateContent through @google/genai', () => {
  it('answers with text and usageMetadata that matches countTokens', async () => {
    const response = await genai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hello, fake Gemini',
      config: { systemInstruction: 'Be terse.' },
    });
    expect(response.text).toBe('Hello, fake Gemini');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: expect.any(Number),
      candidatesTokenCount: 5,
    });
    expect(server.requests[0]?.path).toMatch(/^\/v1(beta)?\/models\/gemini-2.5-flash:generateContent$/);
    const counted = await genai.models.countTokens({
      model: 'gemini-2.5-flash',
      contents: 'Hello, fake Gemini',
    });
    expect(counted.totalTokens).toBeGreaterThan(0);
  });

  it('streams over SSE', async () => {
    const stream = await genai.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'one two three four',
    });
    const texts: string[] = [];
    let last: unknown;
    for await (const chunk of stream) {
      texts.push(chunk.text ?? '');
      last = chunk;
    }
    expect(texts.join('')).toBe('one two three four');
    expect(texts.length).toBe(4);
    expect(last).toMatchObject({ usageMetadata: { candidatesTokenCount: expect.any(Number) } });
    expect(server.requests[0]?.query.get('alt')).toBe('sse');
  });

  it('makes scripted function calls and answers the function response', async () => {
    server.configure({
      respond: (request) =>
        request.messages.at(-1)?.role === 'tool'
          ? { text: 'Sunny in Paris.' }
          : { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    });
    const config = {
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object' } }] }],
    };
    const first = await genai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather?',
      config,
    });
    const call = first.functionCalls?.[0];
    expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Paris' } });
    const second = await genai.models.generateContent({
      model: 'gemini-2.5-flash',
      config,
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'sunny' } } }] },
      ],
    });
    expect(second.text).toBe('Sunny in Paris.');
  });

  it('refuses prompts over the context limit with the real INVALID_ARGUMENT error', async () => {
    const error = await genai.models
      .generateContent({ model: 'gemini-tiny', contents: 'word '.repeat(100) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect(JSON.parse((error as ApiError).message)).toMatchObject({
      error: {
        code: 400,
        status: 'INVALID_ARGUMENT',
        message: expect.stringMatching(
          /^The input token count \(\d+\) exceeds the maximum number of tokens allowed \(30\)\.$/,
        ),
      },
    });
  });

  it('injects failures with the Google error shape', async () => {
    server.configure({ failures: [{ status: 503, message: 'The model is overloaded.' }] });
    const error = await genai.models
      .generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
    expect((error as Error).message).toContain('UNAVAILABLE');
  });
});
