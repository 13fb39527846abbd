import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';

/** Marker of a finished client build (Vite's manifest), so a source folder is never served. */
const BUILD_MARKER = join('.vite', 'manifest.json');

/**
 * Where the built client is: beside the compiled server (`dist/web/client`), or, when the
 * server runs from `src/`, the package's `dist/web/client`. `undefined` when not built.
 */
export function findClientDir(): string | undefined {
  const candidates = [
    fileURLToPath(new URL('../client/', import.meta.url)),
    fileURLToPath(new URL('../../../dist/web/client/', import.meta.url)),
  ];
  return candidates.find((dir) => existsSync(join(dir, BUILD_MARKER)));
}

const NOT_BUILT = `The chatfold web client is not built. Run \`npm run build\` in the package folder, then restart \`chatfold serve\`. The JSON API under /api works without it.\n`;

/**
 * Serves the built client (no CDN, WEB-8): hashed assets cached for a year, `index.html`
 * never cached, and `index.html` for every other page path (the client routes by hash).
 */
export function clientRoutes(clientDir: string | undefined): Hono {
  const app = new Hono();
  if (clientDir === undefined) {
    return app.get('*', (context) => context.text(NOT_BUILT, 503));
  }
  const index = readFileSync(join(clientDir, 'index.html'), 'utf8');
  app.use(
    '/assets/*',
    serveStatic({
      root: clientDir,
      onFound: (_path, context) => {
        context.header('Cache-Control', 'public, max-age=31536000, immutable');
      },
    }),
  );
  app.get('/favicon.svg', serveStatic({ root: clientDir }));
  app.get('*', (context) => {
    context.header('Cache-Control', 'no-cache');
    return context.html(index);
  });
  return app;
}
