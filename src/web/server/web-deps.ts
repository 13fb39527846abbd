import type { z } from 'zod';
import type { Gauge, ServerInfo, WebSettings } from '../api-types.ts';
import type { AgentPool } from './agent-pool.ts';
import type { Redactor } from './redact.ts';
import type { webSettingsPatchSchema } from './web-settings.ts';
import type { WebStore } from './web-store.ts';

/** What every route gets: the store, the agents, settings, the gauge and the redactor. */
export interface WebDeps {
  readonly store: WebStore;
  readonly pool: AgentPool;
  readonly info: ServerInfo;
  readonly redact: Redactor;
  readonly settings: {
    read(): Promise<WebSettings>;
    write(patch: z.infer<typeof webSettingsPatchSchema>): Promise<WebSettings>;
  };
  /** The session's context gauge now (WEB-2). */
  gauge(sessionId: string): Promise<Gauge>;
}
