// Builds the web app's client (WEB-1..8) into dist/web/client at package build time
// (`npm run build`); `chatfold serve` serves it, so nothing comes from a CDN.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../../dist/web/client', import.meta.url)),
    emptyOutDir: true,
    // The server serves only a finished build: it looks for this manifest.
    manifest: true,
    // No inline scripts (WEB-8 CSP): no module-preload polyfill, assets never inlined as data: scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
