/**
 * The gateway's configuration file (issue 21): YAML with positions in its errors, like agent
 * files. It names the upstream and chooses a window and a policy for every request, per model
 * or per route:
 *
 * ```yaml
 * upstream: http://127.0.0.1:11434/v1
 * window: 32000
 * policy: default
 * models:
 *   qwen3:8b: { window: 40960, policy: local-summarization }
 * routes:
 *   agents: { policy: agent-summarize }   # clients use http://127.0.0.1:4000/agents/v1
 * ```
 */
import { isMap, isNode, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { type PolicySpec, resolvePolicy } from '../policy/presets.ts';

/** How requests of one model or route are projected. */
export interface GatewayProfile {
  /** Context window in tokens; overrides the model registry's. */
  readonly window?: number;
  /** Registry model id whose window, output size and tokenizer apply (default: the request's model). */
  readonly model?: string;
  /** A preset name, `{ preset, overrides }` or a policy object (docs/policies.md). */
  readonly policy?: PolicySpec;
  /** Tokens kept free for the answer (a policy override shorthand). */
  readonly maxOutputTokens?: number;
}

/** Which key reaches the upstream (see `UpstreamAuth`). */
export type UpstreamKeyMode = 'env' | 'passthrough' | 'none';

/** The gateway's configuration, from the file and the command line. */
export interface GatewayConfig extends GatewayProfile {
  /** Base URL of the upstream, e.g. `http://127.0.0.1:11434/v1` (Ollama), `https://api.anthropic.com/v1`. */
  readonly upstream?: string;
  /** `openai` (default) for any OpenAI-compatible server, `anthropic` for the Messages API. */
  readonly upstreamFormat?: 'openai' | 'anthropic';
  /** `env`: `CHATFOLD_UPSTREAM_API_KEY`; `passthrough`: the client's own key; `none`. */
  readonly upstreamKey?: UpstreamKeyMode;
  /** Per request model (`model` field), exact name or a prefix ending in `*`. */
  readonly models?: Readonly<Record<string, GatewayProfile>>;
  /** Per route: a client whose base URL is `http://host:port/<route>/v1` gets this profile. */
  readonly routes?: Readonly<Record<string, GatewayProfile>>;
  /** Largest request body in bytes. */
  readonly maxBodyBytes?: number;
  /**
   * Offer the model the `chatfold_recall` tool and answer it from the full history, also
   * inside a streamed answer. Default false.
   */
  readonly recall?: boolean;
}

const positive = z.number().int().positive();
const profileShape = {
  window: positive.optional(),
  model: z.string().min(1).optional(),
  policy: z.unknown().optional(),
  maxOutputTokens: positive.optional(),
};
const profileSchema = z.strictObject(profileShape);
const routeName = /^[a-z0-9][a-z0-9._-]{0,62}$/i;

/** The file's schema (strict: a misspelt key is an error at its position). */
export const gatewayConfigSchema = z.strictObject({
  ...profileShape,
  upstream: z.url({ protocol: /^https?$/ }).optional(),
  upstreamFormat: z.enum(['openai', 'anthropic']).optional(),
  upstreamKey: z.enum(['env', 'passthrough', 'none']).optional(),
  models: z.record(z.string().min(1), profileSchema).optional(),
  routes: z
    .record(z.string().regex(routeName, 'a route name of letters, digits, ".", "_" or "-"'), profileSchema)
    .optional(),
  maxBodyBytes: positive.optional(),
  recall: z.boolean().optional(),
});

/** One problem in a configuration file, with where it is. */
export interface GatewayConfigProblem {
  readonly line: number;
  readonly column: number;
  /** Dotted key path, e.g. `models.qwen3:8b.window`. */
  readonly key: string;
  /** `file:line:col key: what is wrong`. */
  readonly message: string;
}

/** Every policy in the file, with its path, checked by `resolvePolicy`. */
function policyProblems(config: GatewayConfig): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  const check = (spec: unknown, path: (string | number)[]): void => {
    if (spec === undefined) return;
    try {
      resolvePolicy(spec as PolicySpec, path.join('.'));
    } catch (error) {
      problems.push({ path, message: (error as Error).message });
    }
  };
  check(config.policy, ['policy']);
  for (const [name, profile] of Object.entries(config.models ?? {}))
    check(profile.policy, ['models', name, 'policy']);
  for (const [name, profile] of Object.entries(config.routes ?? {}))
    check(profile.policy, ['routes', name, 'policy']);
  return problems;
}

/**
 * Parses and checks a gateway configuration file.
 *
 * @param text The file's content (YAML; JSON is YAML too).
 * @param file The name shown in messages.
 * @returns The configuration.
 * @throws ChatfoldError `E_INVALID_OPTIONS` listing every problem as `file:line:col key: …`, with
 *   `details.problems` ({@link GatewayConfigProblem}s).
 */
export function parseGatewayConfig(text: string, file: string): GatewayConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problems: GatewayConfigProblem[] = [];
  const at = (offset: number | undefined) => {
    const { line, col } = offset === undefined ? { line: 1, col: 1 } : lineCounter.linePos(offset);
    return { line, column: col };
  };
  const add = (path: readonly PropertyKey[], body: string, atKey = false): void => {
    // The value's node (or, for an unknown key, the key's), else the nearest enclosing one.
    let offset: number | undefined;
    if (atKey && path.length > 0) {
      const parent = path.length === 1 ? document.contents : document.getIn(path.slice(0, -1), true);
      if (isMap(parent)) {
        const pair = parent.items.find(
          (item) => isScalar(item.key) && String(item.key.value) === String(path.at(-1)),
        );
        if (isNode(pair?.key)) offset = (pair.key as Node).range?.[0];
      }
    }
    for (let length = path.length; length >= 0 && offset === undefined; length--) {
      const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
      if (isNode(node)) offset = (node as Node).range?.[0];
    }
    const position = at(offset);
    const key = path.map(String).join('.');
    problems.push({
      ...position,
      key,
      message: `${file}:${position.line}:${position.column} ${key === '' ? '' : `${key}: `}${body}`,
    });
  };
  const received = (path: readonly PropertyKey[]): string => {
    const node = document.getIn(path, true);
    if (node === undefined) return 'nothing';
    const value: unknown = isNode(node) ? (node as Node).toJSON() : node;
    if (Array.isArray(value)) return 'a list';
    if (typeof value === 'object' && value !== null) return 'a mapping';
    return JSON.stringify(value);
  };
  const expected = (issue: z.core.$ZodIssue): string => {
    const last = String(issue.path.at(-1));
    if (['window', 'maxOutputTokens', 'maxBodyBytes'].includes(last)) return 'a positive integer';
    if (last === 'upstream') return 'an http:// or https:// base URL, e.g. http://127.0.0.1:11434/v1';
    if (issue.code === 'invalid_value')
      return `one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    if (issue.code === 'invalid_type')
      return `${issue.expected === 'object' ? 'a mapping' : `a ${issue.expected}`}`;
    return issue.message;
  };
  for (const error of document.errors) {
    const position = at(error.pos[0]);
    problems.push({
      ...position,
      key: '',
      message: `${file}:${position.line}:${position.column} invalid YAML: ${error.message.split('\n')[0]}`,
    });
  }
  let config: GatewayConfig = {};
  if (problems.length === 0) {
    const value: unknown = document.toJS({ maxAliasCount: 100 }) ?? {};
    const result = gatewayConfigSchema.safeParse(value);
    if (result.success) {
      config = result.data as GatewayConfig;
      for (const problem of policyProblems(config)) add(problem.path, problem.message);
    } else {
      for (const issue of result.error.issues) {
        const path = issue.path as PropertyKey[];
        if (issue.code === 'unrecognized_keys') {
          for (const key of issue.keys) {
            const known = Object.keys(path.length === 0 ? gatewayConfigSchema.shape : profileShape);
            add([...path, key], `unknown key; expected one of ${known.join(', ')}`, true);
          }
        } else add(path, `expected ${expected(issue)}, received ${received(path)}`);
      }
    }
  }
  if (problems.length > 0) {
    problems.sort((a, b) => a.line - b.line || a.column - b.column);
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `gateway config ${file}:\n${problems.map((problem) => `  ${problem.message}`).join('\n')}`,
      { option: 'config', path: file, problems },
    );
  }
  return config;
}

/**
 * The profile of one request: the file's top level, then its model's entry, then its route's
 * (each field replaces the one before).
 *
 * @param config The configuration.
 * @param model The request's `model`.
 * @param route The route name, when the client used `/<route>/v1/…`.
 */
export function profileFor(config: GatewayConfig, model: string, route: string | undefined): GatewayProfile {
  const models = config.models ?? {};
  let byModel = models[model];
  if (byModel === undefined) {
    // The longest prefix pattern (`qwen3*`) wins.
    const pattern = Object.keys(models)
      .filter((name) => name.endsWith('*') && model.startsWith(name.slice(0, -1)))
      .sort((a, b) => b.length - a.length)[0];
    byModel = pattern === undefined ? undefined : models[pattern];
  }
  const byRoute = route === undefined ? undefined : config.routes?.[route];
  const pick = <K extends keyof GatewayProfile>(key: K): Partial<Pick<GatewayProfile, K>> => {
    const value = byRoute?.[key] ?? byModel?.[key] ?? config[key];
    return value === undefined ? {} : ({ [key]: value } as Pick<GatewayProfile, K>);
  };
  return { ...pick('window'), ...pick('model'), ...pick('policy'), ...pick('maxOutputTokens') };
}
