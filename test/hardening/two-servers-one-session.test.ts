/**
 * One turn at a time per session across processes (issue 24 §5): two `chatfold serve`
 * processes on one store, turns of one session sent to both as a round-robin load balancer
 * would. Every turn is a tool round (the upstream answers a user message with a `read_file`
 * call). Before turn leases, both servers ran turns of the session at once, their tool rounds
 * interleaved in the stored history and chatfold sent those broken histories upstream.
 *
 * - held: a turn runs on one server (its upstream answer held, so it is certainly running) while
 *   the other server gets the next turn: that one is refused with 409 `E_BUSY`, and the first
 *   completes;
 * - free-running: many turns at once, alternating servers: each completes or is refused busy;
 * - afterwards the stored history validates and every prompt the upstream received validated;
 * - a session whose stored history is already interleaved (written before leases) still gets
 *   a valid prompt sent on its next turn.
 *
 * On SQLite (one file, two processes) always; on PostgreSQL when DATABASE_URL is set.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/messages/types.ts';
import { validate } from '../../src/messages/validate.ts';
import { postgresStore } from '../../src/stores/postgres/index.ts';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import type { FullStore } from '../../src/stores/types.ts';
import { cleanEnv, type ServeProcess, startServe } from '../web/serve-process.ts';
import { type GatedUpstream, startGatedUpstream } from './gated-upstream.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const HEADERS = { 'content-type': 'application/json' };
const HELD_ROUNDS = 4;
const FREE_TURNS = 10;

interface Backend {
  readonly name: string;
  /** The `--store` value, and how this process opens the same store. */
  setUp(home: string): Promise<{ store: string; open: () => FullStore; tearDown: () => Promise<void> }>;
}

const BACKENDS: readonly Backend[] = [
  {
    name: 'SQLite (one file)',
    async setUp(home) {
      const file = join(home, 'shared.db');
      return { store: file, open: () => sqliteStore(file), tearDown: async () => undefined };
    },
  },
  ...(DATABASE_URL === undefined
    ? []
    : [
        {
          name: 'PostgreSQL',
          async setUp() {
            const schema = `cf_lease_${process.pid}_${Date.now().toString(36)}`;
            const url = new URL(DATABASE_URL);
            url.searchParams.set('schema', schema);
            return {
              store: url.toString(),
              open: () => postgresStore({ connectionString: DATABASE_URL, max: 2 }, { schema }),
              async tearDown() {
                const admin = new pg.Client({ connectionString: DATABASE_URL });
                await admin.connect();
                await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
                await admin.end();
              },
            };
          },
        } satisfies Backend,
      ]),
];

/** A turn's SSE stream: its event names and error texts. */
function readStream(body: string): { events: string[]; errors: string[] } {
  const events: string[] = [];
  const errors: string[] = [];
  for (const block of body.split('\n\n')) {
    const event = /^event: (.+)$/m.exec(block)?.[1];
    if (event === undefined) continue;
    events.push(event);
    if (event === 'error') errors.push(/^data: (.+)$/m.exec(block)?.[1] ?? '');
  }
  return { events, errors };
}

/** A turn that ran to the end, or one refused because the session was busy. */
async function outcome(response: Response): Promise<'done' | 'busy'> {
  const body = await response.text();
  if (response.status === 409) {
    expect(JSON.parse(body).error.code).toBe('E_BUSY');
    return 'busy';
  }
  expect(response.status, body).toBe(200);
  const stream = readStream(body);
  expect(stream.errors).toEqual([]);
  expect(stream.events.at(-1)).toBe('done');
  expect(stream.events).toContain('tool-call');
  return 'done';
}

describe.each(BACKENDS)('two chatfold serve processes, one session: $name (issue 24 §5)', (backend) => {
  const home = mkdtempSync(join(tmpdir(), 'chatfold-lease-'));
  const servers: ServeProcess[] = [];
  let upstream: GatedUpstream;
  let open: () => FullStore;
  let tearDown: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    upstream = await startGatedUpstream();
    mkdirSync(join(home, 'workspace'));
    writeFileSync(join(home, 'workspace', 'notes.md'), 'hello\n');
    const agentFile = join(home, 'lease.yaml');
    writeFileSync(
      agentFile,
      [
        'name: lease',
        'model:',
        '  provider: openai-compatible',
        '  name: gated',
        `  baseURL: ${upstream.url}/v1`,
        '  maxInputTokens: 100000',
        '  maxOutputTokens: 512',
        'instructions: You read notes.',
        'tools: [read_file]',
        '',
      ].join('\n'),
    );
    const setUp = await backend.setUp(home);
    open = setUp.open;
    tearDown = setUp.tearDown;
    const args = [
      '--store',
      setUp.store,
      '--agent',
      agentFile,
      '--workspace',
      join(home, 'workspace'),
      '--no-workers',
    ];
    // One after the other: the first migrates the store, the second finds it ready.
    for (let index = 0; index < 2; index += 1) {
      servers.push(await startServe(args, cleanEnv(home, { OPENAI_COMPATIBLE_API_KEY: `serve-${index}` })));
    }
  }, 180_000);

  afterAll(async () => {
    upstream?.release();
    await Promise.all(servers.map((server) => server.stop()));
    await upstream?.close();
    await tearDown();
    rmSync(home, { recursive: true, force: true });
  }, 60_000);

  const server = (n: number): ServeProcess => servers[n % 2] as ServeProcess;
  const newSession = async (): Promise<string> => {
    const created = await fetch(`${server(0).url}/api/sessions`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ title: 'lease' }),
    });
    return ((await created.json()) as { session: { id: string } }).session.id;
  };
  const turn = (n: number, id: string, text: string): Promise<Response> =>
    fetch(`${server(n).url}/api/sessions/${id}/turns`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ text }),
    });

  it('refuses a turn on one server while the other runs one, lets free-running turns through one at a time, and the history stays valid', async () => {
    const id = await newSession();
    for (let round = 0; round < HELD_ROUNDS; round += 1) {
      const held = upstream.holdNext();
      const running = turn(round, id, `held turn ${round}`);
      await held; // its tool-call answer is held: the turn is running on server round % 2
      expect(await outcome(await turn(round + 1, id, `competing turn ${round}`))).toBe('busy');
      upstream.release();
      expect(await outcome(await running)).toBe('done');
    }
    const free = await Promise.all(
      Array.from({ length: FREE_TURNS }, async (_, n) => outcome(await turn(n, id, `free turn ${n}`))),
    );
    expect(free).toContain('done');

    const store = open();
    try {
      const history = (await store.messages(id)).map((row) => row.message);
      expect(validate(history, { provider: 'openai' })).toEqual([]);
      const done = HELD_ROUNDS + free.filter((result) => result === 'done').length;
      expect(history.filter((message) => message.role === 'user')).toHaveLength(done);
      // Each turn: user, the call, its result, the answer — never another turn's in between.
      const roles = history.map((message) => message.role).filter((role) => role !== 'system');
      expect(roles).toEqual(
        Array.from({ length: done }, () => ['user', 'assistant', 'tool', 'assistant']).flat(),
      );
    } finally {
      await store.close();
    }
    expect(upstream.prompts.flatMap((prompt) => prompt.problems)).toEqual([]);
  }, 180_000);

  it('sends a valid prompt for a session whose stored history is already interleaved', async () => {
    const id = await newSession();
    const at = '2026-01-01T00:00:00.000Z';
    const text = (role: 'user' | 'assistant', mid: string, said: string): Message => ({
      id: mid,
      role,
      parts: [{ type: 'text', text: said }],
      createdAt: at,
    });
    const call = (mid: string, callId: string): Message => ({
      id: mid,
      role: 'assistant',
      parts: [{ type: 'tool-call', id: callId, name: 'read_file', arguments: '{"path":"notes.md"}' }],
      createdAt: at,
    });
    const result = (mid: string, callId: string): Message => ({
      id: mid,
      role: 'tool',
      parts: [
        { type: 'tool-result', callId, toolName: 'read_file', content: [{ type: 'text', text: 'hello' }] },
      ],
      createdAt: at,
    });
    // What two unserialised turns wrote: A's call, B's user message and call, then both results,
    // and a third turn's call whose result never came (its server died).
    const interleaved = [
      text('user', 'ua', 'turn A'),
      call('ca', 'call_a'),
      text('user', 'ub', 'turn B'),
      call('cb', 'call_b'),
      result('ra', 'call_a'),
      result('rb', 'call_b'),
      text('assistant', 'xa', 'answer A'),
      text('assistant', 'xb', 'answer B'),
      text('user', 'uc', 'turn C'),
      call('cc', 'call_c'),
    ];
    const store = open();
    try {
      await store.append(
        id,
        interleaved.map((message) => ({ message })),
      );
      expect(validate((await store.messages(id)).map((row) => row.message))).not.toEqual([]);
    } finally {
      await store.close();
    }
    const before = upstream.prompts.length;
    expect(await outcome(await turn(0, id, 'turn D'))).toBe('done');
    const sent = upstream.prompts.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.flatMap((prompt) => prompt.problems)).toEqual([]);
  }, 120_000);
});
