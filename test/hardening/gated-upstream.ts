// An OpenAI-compatible chat server for the two-servers test (issue 24 §5), independent of
// chatfold's fake provider: a prompt whose last message is the user's gets a `read_file` tool
// call, one whose last message is a tool result gets text, so every turn is a tool round. A test
// can hold the next tool-call answer until it releases it (a turn that is certainly still
// running, without a sleep), and every prompt is kept with what the validator finds in it.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fromOpenAI } from '../../src/messages/openai.ts';
import { validate } from '../../src/messages/validate.ts';

/** One prompt the upstream received. */
export interface UpstreamPrompt {
  readonly lastRole: string;
  /** What `validate(…, { provider: 'openai' })` reports on it: must be empty. */
  readonly problems: readonly string[];
}

export interface GatedUpstream {
  readonly url: string;
  readonly prompts: UpstreamPrompt[];
  /** Holds the next tool-call answer; resolves once its request arrived (and is held). */
  holdNext(): Promise<void>;
  /** Answers the held request. */
  release(): void;
  close(): Promise<void>;
}

const sse = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`;
const chunk = (delta: unknown, finish: string | null = null): string =>
  sse({
    id: 'chatcmpl-gated',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gated',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

async function readJson(request: IncomingMessage): Promise<{ messages?: unknown[] }> {
  let text = '';
  for await (const piece of request) text += String(piece);
  return JSON.parse(text) as { messages?: unknown[] };
}

export async function startGatedUpstream(): Promise<GatedUpstream> {
  const prompts: UpstreamPrompt[] = [];
  let calls = 0;
  let hold: { arrived: () => void; released: Promise<void>; release: () => void } | undefined;
  let held: (() => void) | undefined;
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(404).end(); // a client's reachability probe (`chatfold chat` GETs /v1/models)
      return;
    }
    const body = await readJson(request);
    const messages = body.messages ?? [];
    const last = messages.at(-1) as { role?: string } | undefined;
    let problems: string[];
    try {
      problems = validate(fromOpenAI(messages as never), { provider: 'openai' }).map(
        (problem) => `${problem.kind}: ${problem.message}`,
      );
    } catch (error) {
      problems = [`unreadable: ${(error as Error).message}`];
    }
    prompts.push({ lastRole: String(last?.role), problems });
    const wantsTool = last?.role === 'user';
    if (wantsTool && hold !== undefined) {
      const gate = hold;
      hold = undefined;
      held = gate.release;
      gate.arrived();
      await gate.released;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    if (wantsTool) {
      calls += 1;
      response.write(
        chunk({
          role: 'assistant',
          tool_calls: [
            {
              index: 0,
              id: `call_${calls}`,
              type: 'function',
              function: { name: 'read_file', arguments: JSON.stringify({ path: 'notes.md' }) },
            },
          ],
        }),
      );
      response.write(chunk({}, 'tool_calls'));
    } else {
      response.write(chunk({ role: 'assistant', content: 'The notes say hello.' }));
      response.write(chunk({}, 'stop'));
    }
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    prompts,
    holdNext() {
      return new Promise<void>((arrived) => {
        let release = (): void => undefined;
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        hold = { arrived, released, release };
      });
    },
    release() {
      held?.();
      held = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
