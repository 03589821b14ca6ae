import { readFileSync } from 'node:fs';

/** The gateway's version (package.json) and build id (`SWITCHYARD_BUILD`, else "dev"), read once. */
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const buildInfo: { version: string; build: string } = {
  version: pkg.version,
  build: process.env.SWITCHYARD_BUILD || 'dev',
};
