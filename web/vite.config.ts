import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

// The dashboard: built to dist/dashboard, served by the gateway at <base_path>/dashboard/.
// Relative asset URLs ("./assets/..."): the gateway rewrites them to its base path when it
// serves index.html. No inline script or style (the page's CSP forbids them).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [preact()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    chunkSizeWarningLimit: 1000,
  },
});
