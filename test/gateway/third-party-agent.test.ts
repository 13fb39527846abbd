/**
 * A real third-party agent CLI from npm through the gateway (issue 21): pi
 * (`@mariozechner/pi-coding-agent`), pointed at the gateway by its documented base-URL setting
 * (`~/.pi/agent/models.json`, `api: openai-completions`), runs a long scripted tool loop — the
 * model asks for a shell command 40 times, each printing a long output — that overflows the
 * upstream's small window when pi talks to it directly, and completes through the gateway.
 *
 * pi is not a dependency of chatfold: the test runs when `PI_BIN` names its `pi` executable (or
 * it is installed in node_modules), and says why it is skipped otherwise.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayServer, startGateway } from '../../src/gateway/index.ts';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import type { FullStore } from '../../src/stores/types.ts';
import { type OpenAIUpstream, startOpenAIUpstream, upstreamTokens } from './openai-upstream.ts';

const LOCAL_PI = new URL('../../node_modules/.bin/pi', import.meta.url).pathname;
const PI_BIN = process.env.PI_BIN ?? (existsSync(LOCAL_PI) ? LOCAL_PI : undefined);
const STEPS = 40;

let upstream: OpenAIUpstream | undefined;
let gateway: GatewayServer | undefined;
let store: FullStore | undefined;
afterEach(async () => {
  await gateway?.close({ drainMs: 1_000 });
  await store?.close();
  await upstream?.close();
});

/** The scripted model: a bash call per request until STEPS calls were made, then a final answer. */
function scriptedAgentModel() {
  let calls = 0;
  return (body: Record<string, unknown>) => {
    const tools = (body.tools as { function: { name: string } }[] | undefined) ?? [];
    if (!tools.some((tool) => tool.function.name === 'bash')) return undefined;
    if (calls >= STEPS) return { role: 'assistant', content: `done after ${calls} commands` };
    calls++;
    return {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: `call_step_${calls}`,
          type: 'function',
          function: {
            name: 'bash',
            arguments: JSON.stringify({ command: `seq -f 'line %g of step ${calls}' 1 60` }),
          },
        },
      ],
    };
  };
}

/** Runs `pi -p` with its own home folder whose models.json points the provider at `baseUrl`. */
function runPi(baseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'chatfold-pi-home-'));
  const work = mkdtempSync(join(tmpdir(), 'chatfold-pi-work-'));
  mkdirSync(join(home, '.pi', 'agent'), { recursive: true });
  writeFileSync(
    join(home, '.pi', 'agent', 'models.json'),
    JSON.stringify({
      providers: {
        local: {
          baseUrl,
          api: 'openai-completions',
          apiKey: 'local-key',
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          // pi's own window is large, so pi itself never compacts: what keeps the run inside the
          // upstream's window is the gateway alone.
          models: [{ id: 'test-model', contextWindow: 1_000_000, maxTokens: 1_000 }],
        },
      },
    }),
  );
  return new Promise((resolve) => {
    // pi reads a piped stdin as part of the prompt: it gets an empty, closed one.
    const child = execFile(
      PI_BIN as string,
      [
        '-p',
        '--no-session',
        '--provider',
        'local',
        '--model',
        'test-model',
        '--tools',
        'bash',
        'Run the checks.',
      ],
      {
        cwd: work,
        env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, '.pi', 'agent') },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
    );
    child.stdin?.end();
  });
}

describe.skipIf(PI_BIN === undefined)(
  PI_BIN === undefined
    ? 'a third-party agent CLI (pi) through the gateway — skipped: set PI_BIN to a `pi` executable (npm install @mariozechner/pi-coding-agent)'
    : 'a third-party agent CLI (pi) through the gateway',
  () => {
    it('overflows the upstream when pi talks to it directly, and completes the run through the gateway', async () => {
      upstream = await startOpenAIUpstream({ limit: 6_000, script: scriptedAgentModel() });
      const direct = await runPi(`${upstream.url}/v1`);
      expect(direct.stdout).not.toContain(`done after ${STEPS} commands`);
      // pi stopped at the request the upstream refused as too long (it exits quietly in print mode).
      const refused = upstream.requests.at(-1)?.body ?? {};
      expect(upstreamTokens(refused)).toBeGreaterThan(6_000);
      expect(upstream.requests.length).toBeLessThan(STEPS + 1);

      await upstream.close();
      upstream = await startOpenAIUpstream({ limit: 6_000, script: scriptedAgentModel() });
      store = sqliteStore(join(mkdtempSync(join(tmpdir(), 'chatfold-pi-gw-')), 'gateway.db'));
      gateway = await startGateway({
        upstream: `${upstream.url}/v1`,
        store,
        port: 0,
        config: { window: 6_000 },
      });
      const viaGateway = await runPi(`${gateway.url}/v1`);
      expect(viaGateway.stdout).toContain(`done after ${STEPS} commands`);
      expect(viaGateway.code).toBe(0);
      // Every command's output reached the store, and the prompts sent stayed inside the window.
      const [session] = await store.listSessions();
      const rows = await store.messages(session?.id as string);
      expect(rows.filter((row) => row.message.role === 'tool')).toHaveLength(STEPS);
      expect(upstream.requests.every((request) => upstreamTokens(request.body) <= 6_000)).toBe(true);
    }, 240_000);
  },
);
