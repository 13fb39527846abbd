import type { z } from 'zod';
import type { Gauge, ServerInfo, WebSettings } from '../api-types.ts';
import type { AgentPool } from './agent-pool.ts';
import type { SummaryLimits } from './manual-summary.ts';
import type { Redactor } from './redact.ts';
import type { WebLog } from './web-log.ts';
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
  /** Structured log lines: failures and fallbacks with session, mode and cause (FR-5.1.1). */
  readonly log: WebLog;
  /** Deadline and output bound of a manual summary (FR-5.1.2). */
  readonly summaryLimits: SummaryLimits;
  /** The session's context gauge now (WEB-2). */
  gauge(sessionId: string): Promise<Gauge>;
}
