// CLI-4, WEB-8: `chatfold serve` as a user runs it — loopback by default, a token required
// anywhere else, a clear message without a model; two servers on one PostgreSQL share sessions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProvider } from '../../src/fake-provider/index.ts';
import type { HistoryPage, ServerInfo, WireSession } from '../../src/web/api-types.ts';
import { cleanEnv, runChatfoldProcess, type ServeProcess, startServe } from './serve-process.ts';

const TOKEN = 'serve-cli-token-0123456789';
let home: string;
let fake: FakeProviderServer;
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'chatfold-serve-'));
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
});

const fakeModelArgs = (): string[] => [
  '--model',
  'openai-compatible:chatfold-fake',
  '--base-url',
  `${fake.url}/v1`,
  '--window',
  '6000',
];

describe('chatfold serve (CLI-4, WEB-8)', () => {
  it('refuses a non-loopback host without a token, or with a short one', async () => {
    const env = cleanEnv(home);
    const open = await runChatfoldProcess(
      'serve',
      ['--host', '0.0.0.0', '--port', '0', '--fake-provider'],
      env,
    );
    expect(open.code).toBe(1);
    expect(open.stdout).not.toContain('listening');
    expect(open.stderr).toMatch(
      /refusing to serve on 0\.0\.0\.0 without an access token.*--token or set CHATFOLD_TOKEN/,
    );
    const short = await runChatfoldProcess(
      'serve',
      ['--host', '0.0.0.0', '--port', '0', '--fake-provider', '--token', 'abc'],
      env,
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 16/);
  });

  it('says what to do when there is no model and no key', async () => {
    const result = await runChatfoldProcess('serve', ['--port', '0'], cleanEnv(home));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no model to chat with: set OPENAI_API_KEY.*--fake-provider/);
  });

  it('binds 127.0.0.1 by default and stores sessions in the XDG data folder', async () => {
    const server = await startServe(['--fake-provider'], cleanEnv(home));
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.output()).toContain(`sqlite ${home}/data/chatfold/chatfold.db`);
      const info = (await (await fetch(`${server.url}/api/info`)).json()) as ServerInfo;
      expect(info.fakeProvider).toBe(true);
      expect(info.store).toBe('sqlite');
    } finally {
      await server.stop();
    }
  });

  it('with a token on 0.0.0.0, every API call needs it (flag or CHATFOLD_TOKEN)', async () => {
    for (const [args, env] of [
      [['--token', TOKEN], cleanEnv(home)],
      [[], cleanEnv(home, { CHATFOLD_TOKEN: TOKEN })],
    ] as const) {
      const server = await startServe(
        ['--host', '0.0.0.0', '--fake-provider', '--store', join(home, 'token.db'), ...args],
        env,
      );
      try {
        const base = server.url.replace('0.0.0.0', '127.0.0.1');
        expect((await fetch(`${base}/api/info`)).status).toBe(401);
        expect(
          (
            await fetch(`${base}/api/sessions`, {
              method: 'POST',
              body: '{}',
              headers: { 'content-type': 'application/json' },
            })
          ).status,
        ).toBe(401);
        const ok = await fetch(`${base}/api/info`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(ok.status).toBe(200);
        expect(await ok.text()).not.toContain(TOKEN);
        expect(server.output()).not.toContain(TOKEN);
      } finally {
        await server.stop();
      }
    }
  });

  const databaseUrl = process.env.DATABASE_URL;
  it.skipIf(databaseUrl === undefined)(
    'two servers on one PostgreSQL share sessions (WEB-1; skipped without DATABASE_URL)',
    async () => {
      const schema = `web_${process.pid}_${Date.now()}`;
      const url = new URL(databaseUrl as string);
      url.searchParams.set('schema', schema);
      const env = cleanEnv(home, { OPENAI_COMPATIBLE_API_KEY: 'fake-key-for-serve-tests' });
      const servers: ServeProcess[] = [];
      try {
        servers.push(await startServe(['--store', url.toString(), ...fakeModelArgs()], env));
        servers.push(await startServe(['--store', url.toString(), ...fakeModelArgs()], env));
        const [a, b] = servers as [ServeProcess, ServeProcess];
        const headers = { 'content-type': 'application/json' };
        const response = await fetch(`${a.url}/api/sessions`, {
          method: 'POST',
          headers,
          body: '{"title":"shared"}',
        });
        const body = await response.text();
        // A failure says what the server answered (and what it logged).
        expect(response.status, `${body}\n${a.output()}`).toBe(201);
        const created = JSON.parse(body) as { session: WireSession };
        const turn = await fetch(`${a.url}/api/sessions/${created.session.id}/turns`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ text: 'written through server A' }),
        });
        expect(await turn.text()).toContain('event: done');
        const list = (await (await fetch(`${b.url}/api/sessions`)).json()) as { sessions: WireSession[] };
        expect(list.sessions.find((session) => session.id === created.session.id)?.title).toBe('shared');
        const history = (await (
          await fetch(`${b.url}/api/sessions/${created.session.id}/history`)
        ).json()) as HistoryPage;
        expect(JSON.stringify(history.messages)).toContain('written through server A');
        // …and a turn on B continues the same session.
        const second = await fetch(`${b.url}/api/sessions/${created.session.id}/turns`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ text: 'and through server B' }),
        });
        expect(await second.text()).toContain('event: done');
        const after = (await (
          await fetch(`${a.url}/api/sessions/${created.session.id}/history`)
        ).json()) as HistoryPage;
        expect(after.total).toBe(5);
      } finally {
        for (const server of servers) await server.stop();
        const pg = await import('pg');
        const admin = new pg.default.Client({ connectionString: databaseUrl });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    },
  );
});
