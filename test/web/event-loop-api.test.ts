// NFR-7.5: opening a long chat for the first time does not hold the server's event loop. A
// request that arrives while the history is being read and counted is answered before the
// open finishes; asserted by the order of the answers and the event-loop turns the open let
// run, never by milliseconds.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_PAGE_ROWS } from '../../src/stores/sql/sql-store.ts';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import type { FullStore } from '../../src/stores/types.ts';
import type { SessionView } from '../../src/web/api-types.ts';
import { filler, startWebHarness, type WebHarness } from './harness.ts';

const MESSAGES = 1000;
const SESSION = 's-long-chat';

let dir = '';
let web: WebHarness;
/** Settles when the open starts reading the history (the store's `context()` is called). */
let historyReadStarted: Promise<void>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-event-loop-'));
  const base = sqliteStore(join(dir, 'store.db'));
  await base.ensureSession(SESSION, { title: 'A long chat' });
  await base.append(
    SESSION,
    Array.from({ length: MESSAGES }, (_, index) => ({
      message: {
        id: `m${index + 1}`,
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        parts: [{ type: 'text' as const, text: filler(`turn-${index + 1}`, 40) }],
        createdAt: new Date(Date.UTC(2026, 10, 27, 0, 0, index)).toISOString(),
      },
    })),
  );
  let started: () => void = () => {};
  historyReadStarted = new Promise((resolve) => {
    started = resolve;
  });
  // The real store; `context()` (the session's first read) also says that it began.
  const store = new Proxy(base, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (key === 'context') {
        return (...args: Parameters<FullStore['context']>) => {
          started();
          return target.context(...args);
        };
      }
      return value.bind(target);
    },
  });
  // A window large enough that the open plans no compaction: the test is about reading and counting.
  web = await startWebHarness({ store, window: 400_000 });
});
afterAll(async () => {
  await web.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a long chat opens without blocking the server (NFR-7.5)', () => {
  it('answers a request that arrives during the first open before the open finishes', async () => {
    const order: string[] = [];
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      if (!counting) return;
      turns++;
      setImmediate(tick);
    };
    const open = web.request(`/api/sessions/${SESSION}`).then(async (response) => {
      order.push('open');
      counting = false;
      return response;
    });
    await historyReadStarted;
    setImmediate(tick);
    // The request arrives on the next turn of the event loop, as one from the network does.
    const info = new Promise<Response>((resolve) => {
      setImmediate(() => resolve(web.request('/api/info')));
    }).then((response) => {
      order.push('info');
      return response;
    });
    const [opened, answered] = await Promise.all([open, info]);
    expect(answered.status).toBe(200);
    expect(opened.status).toBe(200);
    const view = (await opened.json()) as SessionView;
    expect(view.gauge.messagesInHistory).toBe(MESSAGES);
    expect(order).toEqual(['info', 'open']);
    // At least one turn per page of the history read; the count yields more.
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(MESSAGES / READ_PAGE_ROWS) - 1);
  });
});
