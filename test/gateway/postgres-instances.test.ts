/**
 * Several gateways behind a load balancer (issue 21): two `chatfold gateway` processes on one
 * PostgreSQL database serve one conversation with interleaved requests — and, once, the same
 * request sent to both at the same time (a client retry). The store holds every message once,
 * in order, and both answer from the same session.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../src/stores/postgres/index.ts';
import { type GatewayProcess, spawnGateway } from './gateway-process.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

const DATABASE_URL = process.env.DATABASE_URL;

describe.skipIf(DATABASE_URL === undefined)(
  DATABASE_URL === undefined
    ? 'two gateways on one PostgreSQL — skipped: DATABASE_URL is not set (CI sets it to postgres://postgres@127.0.0.1:5432/test)'
    : 'two gateways on one PostgreSQL',
  () => {
    const schema = `cf_gateway_${process.pid}_${Date.now().toString(36)}`;
    const processes: GatewayProcess[] = [];
    let upstream: OpenAIUpstream;
    let urls: string[] = [];

    beforeAll(async () => {
      upstream = await startOpenAIUpstream({ limit: 1_500 });
      const store = `${DATABASE_URL}${DATABASE_URL?.includes('?') ? '&' : '?'}schema=${schema}`;
      for (let index = 0; index < 2; index++) {
        processes.push(
          spawnGateway([
            '--upstream',
            `${upstream.url}/v1`,
            '--port',
            '0',
            '--window',
            '1500',
            '--store',
            store,
          ]),
        );
      }
      urls = await Promise.all(processes.map((gateway) => gateway.ready()));
    });

    afterAll(async () => {
      for (const gateway of processes) gateway.child.kill('SIGTERM');
      await Promise.all(processes.map((gateway) => gateway.exit));
      await upstream?.close();
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });

    it('loses and duplicates no message of a conversation served by both', async () => {
      const messages: { role: string; content: string }[] = [
        { role: 'system', content: 'You answer in one line.' },
      ];
      const sessions = new Set<string>();
      const send = async (url: string) => {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'test-model', messages }),
        });
        if (response.status !== 200) {
          throw new Error(
            `gateway answered ${response.status}: ${await response.text()}\n${processes
              .map((gateway) =>
                gateway
                  .output()
                  .stderr.split('\n')
                  .filter((line) => !line.includes('"type":"request"'))
                  .join('\n'),
              )
              .join('\n---\n')}`,
          );
        }
        sessions.add(response.headers.get('x-chatfold-session') ?? '');
        const body = (await response.json()) as { choices: { message: { content: string } }[] };
        return body.choices[0]?.message.content as string;
      };
      for (let turn = 1; turn <= 24; turn++) {
        messages.push({
          role: 'user',
          content: `Turn ${turn}: ${'how deep is the harbour at low tide '.repeat(6)}`,
        });
        if (turn === 12) {
          // The same request at both instances at once: both answer, the store keeps one copy.
          const [one, two] = await Promise.all(urls.map((url) => send(url)));
          expect(one).toBe(two);
          messages.push({ role: 'assistant', content: one as string });
        } else {
          messages.push({ role: 'assistant', content: await send(urls[turn % 2] as string) });
        }
      }
      expect(sessions.size).toBe(1);
      const store = postgresStore({ connectionString: DATABASE_URL as string, schema });
      try {
        const rows = await store.messages([...sessions][0] as string);
        expect(rows.map((row) => row.seq)).toEqual(rows.map((_, index) => index + 1));
        expect(rows.map((row) => row.message.role)).toEqual(messages.map((message) => message.role));
        expect(
          rows.map((row) => (row.message.parts[0]?.type === 'text' ? row.message.parts[0].text : '')),
        ).toEqual(messages.map((message) => message.content));
      } finally {
        await store.close();
      }
      // The conversation outgrew the upstream's window; each instance sent a projection that fit.
      expect(
        upstream.requests.every((request) => JSON.stringify(request.body.messages).length / 4 <= 1_500),
      ).toBe(true);
    });
  },
);
