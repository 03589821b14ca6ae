#!/usr/bin/env node
// Builds the dashboard (web/ → dist/dashboard) with Vite. `--if-missing`: only when the
// build is absent (npm start and npm test call it so; npm ci builds it via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(`${root}dist/dashboard/index.html`);
if (process.argv.includes('--if-missing') && built) process.exit(0);
const { build } = await import('vite');
await build({ configFile: `${root}web/vite.config.ts` });
console.log('dashboard built: dist/dashboard');
