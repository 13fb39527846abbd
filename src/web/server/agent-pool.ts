import { isModelSpecObject } from '../../agent/agent-options-schema.ts';
import type { Agent, AgentContextOptions, AgentModelSpec, AgentOptions } from '../../agent/types.ts';
import type { JsonValue } from '../../messages/types.ts';
import type { WebSettings } from '../api-types.ts';
import { HttpError } from './http-error.ts';
import type { WebStore } from './web-store.ts';

/** Builds an agent; `createAgent` from `chatfold/agent` in the app, the same in tests. */
export type AgentFactory = (options: AgentOptions) => Agent | Promise<Agent>;

/** Per-session override of auto-compaction (FR-3.1.1), kept in the session's metadata. */
export type SessionAutoCompaction = 'inherit' | 'on' | 'off';

/** Options of {@link AgentPool}. */
export interface AgentPoolOptions {
  readonly store: WebStore;
  /** The agent every session runs (model, instructions, tools, history strategy, context, summarizer). */
  readonly agent: Omit<AgentOptions, 'store' | 'session'>;
  /** The model id thresholds are keyed by (FR-1.2.3). */
  readonly modelId: string;
  readonly createAgent: AgentFactory;
  /** Settings in force; read on every `agent()` call so a saved change applies to the next turn. */
  readonly settings: () => Promise<WebSettings>;
  /** Agents kept open; the least recently used is dropped beyond this. Default 64. */
  readonly maxOpen?: number;
}

/**
 * The session metadata key of the web app's own per-chat setting; the title and the soft
 * delete use the keys chatfold/agent shares with the terminal agent.
 */
export const AUTO_COMPACTION_KEY = 'autoCompaction';

/** Reads a session's auto-compaction override from its metadata. */
export function sessionAutoCompaction(
  metadata: Readonly<Record<string, JsonValue>> | undefined,
): SessionAutoCompaction {
  const value = metadata?.[AUTO_COMPACTION_KEY];
  return value === 'on' || value === 'off' ? value : 'inherit';
}

/** `provider:name` → a model spec; an unset provider field inherits the chat model's base URL and key. */
function summarizerSpec(value: string, model: AgentOptions['model']): AgentModelSpec {
  const colon = value.indexOf(':');
  const provider = value.slice(0, colon) as AgentModelSpec['provider'];
  const name = value.slice(colon + 1);
  const chat =
    typeof model === 'object' && 'provider' in model && typeof model.provider === 'string'
      ? (model as AgentModelSpec)
      : undefined;
  const sameProvider = chat !== undefined && chat.provider === provider;
  return Object.freeze({
    provider,
    name,
    ...(sameProvider && chat.baseURL !== undefined ? { baseURL: chat.baseURL } : {}),
    ...(sameProvider && chat.apiKey !== undefined ? { apiKey: chat.apiKey } : {}),
  });
}

/**
 * The agent definition with a model or summarizer given as a spec frozen (a copy): every agent
 * of the pool then shares one AI SDK model per spec (`createAgent` builds a frozen spec's
 * model once) instead of building the provider at each chat's first open (NFR-7.5).
 */
function withFrozenSpecs(definition: AgentPoolOptions['agent']): AgentPoolOptions['agent'] {
  const frozen = <T>(model: T): T =>
    isModelSpecObject(model) && !Object.isFrozen(model) ? (Object.freeze({ ...model }) as T) : model;
  return {
    ...definition,
    model: frozen(definition.model),
    ...(definition.summarizer === undefined ? {} : { summarizer: frozen(definition.summarizer) }),
  };
}

interface OpenAgent {
  readonly key: string;
  readonly agent: Promise<Agent>;
}

/**
 * One agent per session, built from the agent definition plus the settings in force (WEB-7):
 * auto-compaction (global, then per session), the threshold for this model, retention tokens
 * and the summarizer model. The web app runs turns and summaries only through these agents,
 * the same runtime as `chatfold chat` (AG-3). A settings change builds a fresh agent for the
 * session's next request; the session's history lives in the store, so nothing is lost.
 * At most one turn or summary runs per session at a time; `stop` ends it.
 */
export class AgentPool {
  readonly #options: AgentPoolOptions;
  /** `options.agent`, its model specs frozen. */
  readonly #definition: AgentPoolOptions['agent'];
  /** The summarizer spec of the last `summarizerModel` setting seen (one object per value). */
  #summarizer: { readonly value: string; readonly spec: AgentModelSpec } | undefined;
  readonly #open = new Map<string, OpenAgent>();
  /** Sessions with a turn or summary running, each with the function that stops it. */
  readonly #busy = new Map<string, () => void>();

  constructor(options: AgentPoolOptions) {
    this.#options = options;
    this.#definition = withFrozenSpecs(options.agent);
  }

  /** The spec of a `provider:name` summarizer setting, the same object while the setting stays. */
  #summarizerSpec(value: string): AgentModelSpec {
    if (this.#summarizer?.value !== value) {
      this.#summarizer = { value, spec: summarizerSpec(value, this.#definition.model) };
    }
    return this.#summarizer.spec;
  }

  /** The context options an agent of this session gets under the given settings. */
  contextFor(settings: WebSettings, override: SessionAutoCompaction): AgentContextOptions {
    const base = this.#options.agent.context ?? {};
    const threshold = settings.thresholds[this.#options.modelId] ?? base.threshold;
    return {
      ...base,
      // The chat-app policy is this app's default; an agent file's own policy wins.
      policy: base.policy ?? 'chat-app',
      autoSummarize: override === 'inherit' ? settings.autoCompaction : override === 'on',
      retentionTokens: settings.retentionTokens,
      ...(threshold === undefined ? {} : { threshold }),
    };
  }

  /** The options a session's agent gets under the current settings, and a key that changes with them. */
  async #optionsFor(sessionId: string): Promise<{ options: AgentOptions; key: string }> {
    const { store } = this.#options;
    const definition = this.#definition;
    const [settings, info] = await Promise.all([this.#options.settings(), store.getSession(sessionId)]);
    const context = this.contextFor(settings, sessionAutoCompaction(info?.metadata));
    const summarizer =
      settings.summarizerModel === null
        ? definition.summarizer
        : this.#summarizerSpec(settings.summarizerModel);
    return {
      options: {
        ...definition,
        context,
        ...(summarizer === undefined ? {} : { summarizer }),
        store,
        session: sessionId,
        turnLease: 'off', // streamSessionRun takes it, to answer 409 before the stream starts
      },
      key: JSON.stringify([context, settings.summarizerModel]),
    };
  }

  /** The session's agent under the current settings (built on first use or after a change). */
  async agent(sessionId: string): Promise<Agent> {
    const { options, key } = await this.#optionsFor(sessionId);
    const open = this.#open.get(sessionId);
    if (open !== undefined && open.key === key) {
      this.#open.delete(sessionId);
      this.#open.set(sessionId, open); // most recently used last
      return open.agent;
    }
    const agent = Promise.resolve(this.#options.createAgent(options));
    this.#open.set(sessionId, { key, agent });
    agent.catch(() => {
      if (this.#open.get(sessionId)?.agent === agent) this.#open.delete(sessionId);
    });
    const max = this.#options.maxOpen ?? 64;
    for (const oldest of this.#open.keys()) {
      if (this.#open.size <= max) break;
      if (!this.#busy.has(oldest)) this.#open.delete(oldest);
    }
    return agent;
  }

  /**
   * A one-off agent for the session under the current settings, with some options replaced
   * (a scratch store, hooks); not cached.
   */
  async fresh(sessionId: string, overrides: Partial<AgentOptions>): Promise<Agent> {
    const { options } = await this.#optionsFor(sessionId);
    return this.#options.createAgent({ ...options, ...overrides });
  }

  /**
   * Marks a session busy for a turn or a summary; refuses a second one with 409 `E_BUSY`
   * (two tabs on one session). Returns the function that ends it.
   */
  begin(sessionId: string, stop: () => void = () => undefined): () => void {
    if (this.#busy.has(sessionId)) {
      throw new HttpError(
        409,
        'E_BUSY',
        'a turn or a summary is already running in this session; wait for it to finish or stop it first',
      );
    }
    this.#busy.set(sessionId, stop);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#busy.delete(sessionId);
    };
  }

  /**
   * Stops the session's running turn or summary (the Stop and Cancel buttons): its stream stays
   * open until what was produced is stored, then ends with `done: aborted`.
   *
   * @returns false when nothing was running.
   */
  stop(sessionId: string): boolean {
    const stop = this.#busy.get(sessionId);
    stop?.();
    return stop !== undefined;
  }

  /** True while a turn or summary runs in the session. */
  isBusy(sessionId: string): boolean {
    return this.#busy.has(sessionId);
  }
}
