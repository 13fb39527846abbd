// The web app's server (CLI-4, WEB-1..8): a Hono app testable with in-process requests, and
// the HTTP server `chatfold serve` runs.
export type { AgentFactory } from './agent-pool.ts';
export { createWebApp, DEFAULT_MAX_BODY_BYTES, type WebAppOptions } from './create-web-app.ts';
export { createRedactor, secretsFromEnvironment } from './redact.ts';
export {
  checkBind,
  MIN_TOKEN_LENGTH,
  type StartWebServerOptions,
  startWebServer,
  type WebServer,
} from './start-web-server.ts';
export { findClientDir } from './static-client.ts';
