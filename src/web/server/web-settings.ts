import { z } from 'zod';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { JsonValue } from '../../messages/types.ts';
import { POLICIES } from '../../policy/presets.ts';
import type { WebSettings } from '../api-types.ts';
import type { WebStore } from './web-store.ts';

/** The store setting that holds the web app's settings (FR-3.1.2: persisted in `settings`). */
export const WEB_SETTINGS_KEY = 'chatfold.web.settings';

/** Model ids as thresholds are keyed: what a registry or a provider calls a model. */
const modelId = z
  .string()
  .trim()
  .min(1, 'a model id must not be empty')
  .max(200, 'a model id has at most 200 characters');

/** `provider:model`, e.g. `openai:gpt-4o-mini` (SUM-5, seed 001 open question 4). */
export const summarizerModelSchema = z
  .string()
  .trim()
  .max(200)
  .regex(
    /^(openai|anthropic|google|openai-compatible):[^\s:][^\s]*$/,
    'expected provider:model, e.g. openai:gpt-4o-mini (providers: openai, anthropic, google, openai-compatible)',
  );

/** The settings schema (WEB-7, FR-3.1.1); the page and the API validate with the same one. */
export const webSettingsSchema = z.strictObject({
  autoCompaction: z.boolean(),
  thresholds: z
    .record(modelId, z.number().min(0.1, 'at least 0.1 (10 %)').max(1, 'at most 1 (100 %)'))
    .refine((value) => Object.keys(value).length <= 100, 'at most 100 models'),
  retentionTokens: z.number().int().min(0).max(1_000_000),
  notifications: z.boolean(),
  summarizerModel: summarizerModelSchema.nullable(),
});

/** What `PUT /api/settings` takes: any subset, merged into the current settings. */
export const webSettingsPatchSchema = webSettingsSchema.partial();

/** Defaults: the engine's own (`DEFAULTS`), so the web app never disagrees with the library. */
export const DEFAULT_WEB_SETTINGS: WebSettings = Object.freeze({
  autoCompaction: true,
  thresholds: {},
  retentionTokens: POLICIES['chat-app'].retention.tokens ?? 1000,
  notifications: true,
  summarizerModel: null,
});

/**
 * Reads the settings from the store, filling in defaults for keys never saved. A stored value
 * that does not match the schema is an error that says which key and how to fix it (never a
 * silent reset).
 */
export async function readWebSettings(store: WebStore): Promise<WebSettings> {
  const stored = await store.getSetting(WEB_SETTINGS_KEY);
  if (stored === undefined) return DEFAULT_WEB_SETTINGS;
  const parsed = webSettingsPatchSchema.safeParse(stored);
  if (!parsed.success) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `stored web settings (${WEB_SETTINGS_KEY}) are invalid: ${z.prettifyError(parsed.error)}; save the settings page again to replace them`,
      { key: WEB_SETTINGS_KEY },
    );
  }
  return withoutUndefined({ ...DEFAULT_WEB_SETTINGS, ...parsed.data });
}

/** Merges a validated patch into the stored settings and saves them. */
export async function writeWebSettings(
  store: WebStore,
  patch: z.infer<typeof webSettingsPatchSchema>,
): Promise<WebSettings> {
  const next = withoutUndefined({ ...(await readWebSettings(store)), ...patch });
  await store.setSetting(WEB_SETTINGS_KEY, next as unknown as JsonValue);
  return next;
}

function withoutUndefined(
  settings: { readonly [K in keyof WebSettings]?: WebSettings[K] | undefined },
): WebSettings {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) if (value !== undefined) out[key] = value;
  return out as unknown as WebSettings;
}
