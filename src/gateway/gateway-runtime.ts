/**
 * The request path every gateway route shares (issue 21): map the request to a session, append
 * what is new, project it with the profile's policy, send the projection upstream (once more
 * after an overflow), and store the reply. The routes only convert wire formats.
 */
import { LRUCache } from 'lru-cache';
import type { CompactionQueue } from '../background/types.ts';
import { compact } from '../compaction/compact.ts';
import { resolveCompactionModel } from '../compaction/resolve-model.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { retryOnOverflow } from '../integrations/call-with-overflow-retry.ts';
import type { ContextOverflow } from '../integrations/overflow.ts';
import { createEngineCache, type EngineCache } from '../messages/engine-cache.ts';
import type { Message, Provider, ToolDefinition } from '../messages/types.ts';
import { createChatfold } from '../session/create-chatfold.ts';
import type { Chatfold, PreparedPrompt, Session, SessionEvent } from '../session/types.ts';
import { checkSessionId } from '../stores/shared/errors.ts';
import type { FullStore } from '../stores/types.ts';
import type { Summarizer } from '../summarize/types.ts';
import { type AnthropicHistoryCache, createAnthropicHistoryCache } from './anthropic-history-cache.ts';
import { conversationFingerprint, messageKey } from './conversation-key.ts';
import { type ConversationMap, createConversationMap, gatewayMessageId } from './conversation-map.ts';
import { type GatewayConfig, type GatewayProfile, profileFor } from './gateway-config.ts';
import type { GatewayEvent, GatewayEventListener } from './gateway-events.ts';
import { createOpenAIHistoryCache, type OpenAIHistoryCache } from './openai-history-cache.ts';
import { sessionFallbackEvent } from './session-fallbacks.ts';
import {
  sendUpstream,
  type UpstreamAuth,
  type UpstreamFormat,
  upstreamHeaders,
  upstreamUrl,
} from './upstream.ts';

/** Session metadata key naming the model and route a gateway session was created for. */
export const ORIGIN_KEY = 'chatfoldGateway';

interface SessionOrigin {
  readonly model: string;
  readonly route?: string;
}

function readOrigin(value: unknown): SessionOrigin | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { model, route } = value as { model?: unknown; route?: unknown };
  if (typeof model !== 'string') return undefined;
  return { model, ...(typeof route === 'string' ? { route } : {}) };
}

/**
 * Whether the prompt sent is not the stored history as is: this call compacted, or an earlier
 * compaction's summary stands for messages (fewer messages than the session holds).
 */
export function isCompacted(conversation: Conversation, prepared: PreparedPrompt): boolean {
  return prepared.report.compacted || prepared.messages.length !== conversation.length;
}

/** Window of a model the registry does not know when no `window` is configured (learned from overflow errors). */
export const DEFAULT_GATEWAY_WINDOW = 8_192;

/** Response headers the gateway adds. */
export const GATEWAY_HEADERS = Object.freeze({
  session: 'x-chatfold-session',
  branchedFrom: 'x-chatfold-branched-from',
  compacted: 'x-chatfold-compacted',
  cachedPrefixTokens: 'x-chatfold-cached-prefix-tokens',
  tokens: 'x-chatfold-prompt-tokens',
});

/** What the runtime needs. */
export interface GatewayRuntimeOptions {
  readonly upstream: string;
  readonly upstreamFormat: UpstreamFormat;
  readonly auth: UpstreamAuth;
  readonly store: FullStore;
  readonly config: GatewayConfig;
  readonly summarizer?: Summarizer;
  readonly background?: { readonly queue: CompactionQueue; readonly threshold?: number };
  readonly fetch?: typeof fetch;
  readonly onEvent: GatewayEventListener;
}

/** One request in neutral form, with how to write the upstream body for a projection. */
export interface ForwardRequest {
  readonly format: UpstreamFormat;
  readonly provider: Provider;
  readonly route: string | undefined;
  readonly model: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolDefinition[] | undefined;
  /** `x-chatfold-session`, when the client named its session. */
  readonly sessionHeader: string | undefined;
  readonly incoming: Headers;
  /** Path below the upstream base URL (`/chat/completions`). */
  readonly path: string;
  /** The upstream body for a projection; `cache` is the conversation's (give it to `toOpenAI` / `toAnthropic`). */
  readonly body: (projection: readonly Message[], cache: EngineCache) => string;
  readonly signal?: AbortSignal;
  /** When the request arrived (`performance.now()`), so the gateway's own time includes reading and converting it. */
  readonly startedAt?: number;
}

/** The conversation a request was mapped to. */
export interface Conversation {
  readonly rootId: string;
  readonly sessionId: string;
  readonly branchedFrom?: string;
  readonly session: Session;
  /**
   * The conversation's memo tables: converting the same projection messages again each turn
   * reads what was checked before instead of checking it again.
   */
  readonly cache: EngineCache;
  /** Messages the session holds after this request's were appended (where the reply goes). */
  readonly length: number;
  readonly newMessages: number;
}

/** A request forwarded: the upstream's response (2xx, body unread) and what was sent. */
export interface Forwarded {
  readonly response: Response;
  readonly conversation: Conversation;
  readonly prepared: PreparedPrompt;
  /** Milliseconds from the request to the upstream call (the gateway's own work). */
  readonly gatewayMs: number;
}

/** The shared request path. */
export interface GatewayRuntime {
  forward(request: ForwardRequest): Promise<Forwarded>;
  /** Stores the reply after the request's messages (unless the session moved on) and the call's usage. */
  recordReply(
    conversation: Conversation,
    reply: Message | undefined,
    usage: { readonly inputTokens?: number; readonly outputTokens?: number },
  ): Promise<void>;
  headers(conversation: Conversation, prepared: PreparedPrompt): Record<string, string>;
  /**
   * What the gateway would send for `messages` as a new conversation (stateless, nothing
   * stored): `count_tokens` answers with it.
   */
  project(request: {
    readonly model: string;
    readonly route: string | undefined;
    readonly messages: readonly Message[];
    readonly tools: readonly ToolDefinition[] | undefined;
    readonly provider: Provider;
  }): Promise<{ readonly messages: readonly Message[]; readonly tokens: number }>;
  emit(event: GatewayEvent): void;
  readonly map: ConversationMap;
  /** Chat Completions histories converted once per message (see `createOpenAIHistoryCache`). */
  readonly openAIHistory: OpenAIHistoryCache;
  /** Messages histories converted once per turn (see `createAnthropicHistoryCache`). */
  readonly anthropicHistory: AnthropicHistoryCache;
  /** Whether the model is offered `chatfold_recall` (the config's `recall`). */
  readonly recall: boolean;
  /** Sends a body upstream as it is (the recall rounds), with the request's headers and the gateway's key. */
  send(request: {
    readonly format: UpstreamFormat;
    readonly path: string;
    readonly body: string;
    readonly incoming: Headers;
    readonly signal?: AbortSignal;
  }): Promise<Response>;
  /**
   * Opens a session the gateway created, with the window and policy it was created under (read
   * from the session's metadata, so a worker in another process opens it the same way): what
   * `runCompactionWorker` needs.
   */
  session(id: string): Promise<Session>;
}

/**
 * Creates the runtime.
 *
 * @param options Upstream, store, configuration and where events go.
 */
export function createGatewayRuntime(options: GatewayRuntimeOptions): GatewayRuntime {
  const { store, config, onEvent } = options;
  const map = createConversationMap({ store });
  const chatfolds = new Map<string, Chatfold>();
  const emit = (event: GatewayEvent): void => {
    try {
      onEvent(event);
    } catch {
      // A listener's failure must not fail a request.
    }
  };

  /** The window settings of a profile: the registry's model, else the configured window alone. */
  const modelSettings = (profile: GatewayProfile, model: string): { model?: string; window?: number } => {
    const window = profile.window === undefined ? {} : { window: profile.window };
    try {
      resolveCompactionModel({ model: profile.model ?? model, ...window });
      return { model: profile.model ?? model, ...window };
    } catch (error) {
      // An ambiguous or malformed model id: the window alone still projects.
      if (!ChatfoldError.hasCode(error, 'E_UNKNOWN_MODEL')) throw error;
      return { window: profile.window ?? DEFAULT_GATEWAY_WINDOW };
    }
  };

  const chatfoldFor = (profile: GatewayProfile, model: string): Chatfold => {
    const key = JSON.stringify([profile, model]);
    let chatfold = chatfolds.get(key);
    if (chatfold !== undefined) return chatfold;
    const shared = {
      store,
      ...(profile.policy === undefined ? {} : { policy: profile.policy }),
      ...(profile.maxOutputTokens === undefined ? {} : { maxOutputTokens: profile.maxOutputTokens }),
      ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
      ...(options.background === undefined ? {} : { background: options.background }),
      onEvent: (event: SessionEvent, sessionId: string) => {
        const fallback = sessionFallbackEvent(event, sessionId);
        if (fallback !== undefined) emit(fallback);
        if (event.type === 'compaction-end') {
          const report = event.report;
          emit({
            type: 'compaction',
            sessionId,
            tokensBefore: report.tokensBefore,
            tokensAfter: report.tokensAfter,
            mode: report.mode,
          });
          if (report.summary !== undefined) {
            emit({ type: 'summary', sessionId, durationMs: event.durationMs, source: report.summary.source });
          }
        }
      },
    };
    chatfold = createChatfold({ ...shared, ...modelSettings(profile, model) });
    chatfolds.set(key, chatfold);
    return chatfold;
  };

  // Which model and route a session was created for, so any process opens it with the same
  // window and policy (a background plan made under other settings would not fit).
  const origins = new LRUCache<string, SessionOrigin>({ max: 10_000 });
  const rememberOrigin = async (
    sessionId: string,
    model: string,
    route: string | undefined,
  ): Promise<void> => {
    if (origins.has(sessionId)) return;
    const origin: SessionOrigin = { model, ...(route === undefined ? {} : { route }) };
    const info = await store.getSession(sessionId);
    const stored = readOrigin(info?.metadata?.[ORIGIN_KEY]);
    if (stored === undefined) await store.ensureSession(sessionId, { [ORIGIN_KEY]: { ...origin } });
    origins.set(sessionId, stored ?? origin);
  };
  const session = async (id: string): Promise<Session> => {
    let origin = origins.get(id);
    if (origin === undefined) {
      origin = readOrigin((await store.getSession(id))?.metadata?.[ORIGIN_KEY]);
      if (origin === undefined) {
        throw new ChatfoldError(
          'E_INVALID_SESSION_ID',
          `session ${JSON.stringify(id)} was not created by a gateway (its metadata has no ${ORIGIN_KEY})`,
          { reason: 'not a gateway session' },
        );
      }
      origins.set(id, origin);
    }
    return chatfoldFor(profileFor(config, origin.model, origin.route), origin.model).session(id);
  };

  const engineCaches = new LRUCache<string, EngineCache>({ max: 1_000 });

  const forward = async (request: ForwardRequest): Promise<Forwarded> => {
    const started = request.startedAt ?? performance.now();
    const profile = profileFor(config, request.model, request.route);
    const chatfold = chatfoldFor(profile, request.model);
    const rootId = checkSessionId(
      request.sessionHeader ?? conversationFingerprint(request.messages, request.route ?? ''),
    );
    const conversation = await map.exclusive(rootId, async (): Promise<Conversation> => {
      let match = await map.match(rootId, request.messages);
      let session = await chatfold.session(match.sessionId);
      await rememberOrigin(match.sessionId, request.model, request.route);
      for (let attempt = 1; match.newMessages.length > 0; attempt++) {
        try {
          await session.append(match.newMessages);
          break;
        } catch (error) {
          // Another gateway instance stored the same turn first (the same id, another timestamp):
          // what it stored is this request's too, so look again and store only what is left.
          if (!ChatfoldError.hasCode(error, 'E_STORE_CONFLICT') || attempt >= 3) throw error;
          match = await map.match(rootId, request.messages);
          session = await chatfold.session(match.sessionId);
        }
      }
      let cache = engineCaches.get(match.sessionId);
      if (cache === undefined) {
        cache = createEngineCache();
        engineCaches.set(match.sessionId, cache);
      }
      return {
        rootId,
        sessionId: match.sessionId,
        session,
        cache,
        length: match.keys.length,
        newMessages: match.newMessages.length,
        ...(match.branchedFrom === undefined ? {} : { branchedFrom: match.branchedFrom }),
      };
    });
    const headers = upstreamHeaders(request.incoming, options.auth, request.format);
    const url = upstreamUrl(options.upstream, request.path);
    let prepared: PreparedPrompt | undefined;
    let gatewayMs = 0;
    const response = await retryOnOverflow<PreparedPrompt, Response>({
      prepare: (overflow: ContextOverflow | undefined) =>
        conversation.session.prepare({
          provider: request.provider,
          ...(request.tools === undefined ? {} : { tools: request.tools }),
          ...(overflow === undefined ? {} : { overflow }),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
        }),
      send: (next) => {
        prepared = next;
        gatewayMs ||= performance.now() - started;
        return sendUpstream({
          url,
          headers,
          body: request.body(next.messages, conversation.cache),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        });
      },
      onRetry: (overflow) =>
        emit({
          type: 'overflow-retry',
          sessionId: conversation.sessionId,
          ...(overflow.limit === undefined ? {} : { limit: overflow.limit }),
          ...(overflow.actual === undefined ? {} : { actual: overflow.actual }),
        }),
    });
    return { response, conversation, prepared: prepared as unknown as PreparedPrompt, gatewayMs };
  };

  const recordReply: GatewayRuntime['recordReply'] = async (conversation, reply, usage) => {
    const { session, sessionId, rootId, length } = conversation;
    let messageId: string | undefined;
    if (reply !== undefined) {
      messageId = await map.exclusive(rootId, async () => {
        const held = await map.keys(sessionId);
        if (held.length !== length) {
          // Another request of this conversation got there first; the client sends this reply
          // back with its next turn, and it is stored then.
          emit({ type: 'reply-not-recorded', sessionId, reason: 'the session moved on' });
          return undefined;
        }
        const id = gatewayMessageId(sessionId, length, messageKey(reply));
        try {
          await session.append({ ...reply, id });
        } catch (error) {
          // Another instance stored the same reply first (the same request sent to both).
          if (!ChatfoldError.hasCode(error, 'E_STORE_CONFLICT')) throw error;
        }
        await map.keys(sessionId);
        return id;
      });
    }
    if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
      await session.recordUsage({ ...usage, ...(messageId === undefined ? {} : { messageId }) });
    }
  };

  const project: GatewayRuntime['project'] = async ({ model, route, messages, tools, provider }) => {
    const profile = profileFor(config, model, route);
    const { messages: projection, plan } = await compact(messages, {
      ...modelSettings(profile, model),
      ...(profile.policy === undefined ? {} : { policy: profile.policy }),
      ...(profile.maxOutputTokens === undefined ? {} : { maxOutputTokens: profile.maxOutputTokens }),
      ...(tools === undefined ? {} : { tools }),
      provider,
    });
    return { messages: projection, tokens: plan.tokensAfter };
  };

  return {
    map,
    openAIHistory: createOpenAIHistoryCache(),
    anthropicHistory: createAnthropicHistoryCache(),
    recall: config.recall === true,
    send: ({ format, path, body, incoming, signal }) =>
      sendUpstream({
        url: upstreamUrl(options.upstream, path),
        headers: upstreamHeaders(incoming, options.auth, format),
        body,
        ...(signal === undefined ? {} : { signal }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      }),
    session,
    emit,
    forward,
    recordReply,
    project,
    headers: (conversation, prepared) => ({
      [GATEWAY_HEADERS.session]: conversation.sessionId,
      ...(conversation.branchedFrom === undefined
        ? {}
        : { [GATEWAY_HEADERS.branchedFrom]: conversation.branchedFrom }),
      [GATEWAY_HEADERS.compacted]: String(isCompacted(conversation, prepared)),
      [GATEWAY_HEADERS.cachedPrefixTokens]: String(prepared.cachedPrefixTokens),
      [GATEWAY_HEADERS.tokens]: String(prepared.tokens),
    }),
  };
}
