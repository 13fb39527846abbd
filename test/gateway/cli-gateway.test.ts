/**
 * `chatfold gateway` as a process (issue 21): a Python client using only the standard library
 * talks to it, it logs JSON lines without content or keys, serves /healthz and /metrics, keeps
 * conversations in a SQLite file, refuses unsafe binds and bad config files with positions, and
 * stops gracefully on SIGTERM.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import { type GatewayProcess, spawnGateway } from './gateway-process.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

const PYTHON_CLIENT = new URL('./python_client.py', import.meta.url).pathname;

const processes: GatewayProcess[] = [];
let upstream: OpenAIUpstream | undefined;
afterEach(async () => {
  for (const gateway of processes.splice(0))
    if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await upstream?.close();
  upstream = undefined;
});

function run(args: readonly string[], env: Record<string, string> = {}): GatewayProcess {
  const gateway = spawnGateway(args, env);
  processes.push(gateway);
  return gateway;
}

describe('chatfold gateway', () => {
  it('serves a Python standard-library client, logs without content or keys, and stops on SIGTERM', async () => {
    upstream = await startOpenAIUpstream({ limit: 1_500 });
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-gateway-'));
    const storeFile = join(dir, 'gateway.db');
    const cli = run(
      ['--upstream', `${upstream.url}/v1`, '--port', '0', '--window', '1500', '--store', storeFile],
      {
        CHATFOLD_UPSTREAM_API_KEY: 'sk-upstream-secret-1234567890',
      },
    );
    const url = await cli.ready();
    const { stdout } = cli.output();
    expect(stdout).toContain(`OpenAI clients:    base URL ${url}/v1`);
    expect(stdout).toContain('key: from CHATFOLD_UPSTREAM_API_KEY');

    const { stdout: pythonOut } = await promisify(execFile)('python3', [PYTHON_CLIENT, `${url}/v1`, '25']);
    const seen = JSON.parse(pythonOut) as {
      sessions: string[];
      compacted: number;
      replies: string[];
      streamed: string;
    };
    expect(seen.sessions).toHaveLength(1);
    expect(seen.compacted).toBeGreaterThan(0);
    expect(seen.replies).toHaveLength(25);
    expect(seen.streamed).toMatch(/^ack \d+: One streamed answer/);
    // Every turn fitted the upstream's 1,500 tokens (the client saw no error), with the gateway's key.
    expect(
      upstream.requests.every(
        (request) => request.headers.authorization === 'Bearer sk-upstream-secret-1234567890',
      ),
    ).toBe(true);

    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(
      /chatfold_gateway_requests_total\{format="openai",stream="false",status="200",compacted="true"\} \d+/,
    );
    expect(metrics).toMatch(/chatfold_gateway_prompt_tokens_total\{stage="before"\} \d+/);

    cli.child.kill('SIGTERM');
    expect(await cli.exit).toBe(0);
    const { stdout: finalOut, stderr } = cli.output();
    expect(finalOut).toContain('stopping: letting requests in flight finish');
    const lines = stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const events = lines.map((line) => JSON.parse(line) as { type: string; sessionId?: string });
    expect(events.filter((event) => event.type === 'request')).toHaveLength(26);
    expect(stderr).not.toContain('harbour');
    expect(stderr).not.toContain('sk-upstream-secret');
    expect(stderr).not.toContain('python-client-key');

    // The conversation is in the SQLite file: 1 system + 26 user + 26 assistant messages.
    const store = sqliteStore(storeFile);
    const stored = await store.messages(seen.sessions[0] as string);
    expect(stored).toHaveLength(53);
    await store.close();
  });

  it('refuses to listen off loopback without a token', async () => {
    const cli = run(['--upstream', 'http://127.0.0.1:9/v1', '--host', '0.0.0.0', '--port', '0']);
    expect(await cli.exit).not.toBe(0);
    expect(cli.output().stderr).toContain('without an access token');
  });

  it('names the line and column of a mistake in the config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-gateway-config-'));
    const file = join(dir, 'gateway.yaml');
    writeFileSync(file, 'upstream: http://127.0.0.1:11434/v1\nmodels:\n  qwen3:8b:\n    window: lots\n');
    const cli = run(['--config', file, '--port', '0']);
    expect(await cli.exit).not.toBe(0);
    expect(cli.output().stderr).toContain(`${file}:4:13 models.qwen3:8b.window:`);
  });
});
