#!/usr/bin/env node
// Launcher for the `switchyard` command. The gateway runs its TypeScript sources
// directly on Node >= 22.18 (built-in type stripping). When started by an older
// Node (the system one on some machines), re-run under the Node 24 binary that
// `npm ci` installs from the `node` package.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const [major, minor] = process.versions.node.split('.').map(Number);

if (major > 22 || (major === 22 && minor >= 18)) {
  await import(join(root, 'src', 'cli', 'main.ts'));
} else {
  const bundled = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(bundled)) {
    console.error(`switchyard needs Node >= 22.18 (this is ${process.version}); run \`npm ci\` to install Node 24 locally.`);
    process.exit(1);
  }
  const child = spawn(bundled, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
}
