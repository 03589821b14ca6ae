#!/usr/bin/env node
// Launcher for the `switchyard` command. The gateway runs its TypeScript sources
// directly on Node >= 22.18 (built-in type stripping). When started by an older
// Node (the system one on some machines), re-run under the Node 24 binary that
// `npm ci` installs from the `node` package.
//
// Signals: `npm start` runs this file with `exec` (npm's shell would not pass signals
// on); the launcher passes SIGINT, SIGTERM and SIGHUP on to the gateway and exits as
// the gateway did. The gateway is spawned with an IPC channel to the launcher; when the
// channel closes (the launcher died, even by SIGKILL) the gateway stops as on SIGTERM, so
// no orphan is left holding the port and the database.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const [major, minor] = process.versions.node.split('.').map(Number);
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

if (major > 22 || (major === 22 && minor >= 18)) {
  if (process.env.SWITCHYARD_LAUNCHED === '1' && process.channel) {
    // Started by the launcher below: the channel must not keep a finished command alive.
    process.channel.unref();
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  } else if (process.env.npm_lifecycle_event !== undefined) {
    // Started by an npm script (`npm start`): npm passes signals on, but npm itself killed
    // (SIGKILL) cannot; when it is gone (this process was re-parented) stop as on SIGTERM.
    // Only under npm: a gateway started by hand may outlive its shell (nohup) on purpose.
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      process.kill(process.pid, 'SIGTERM');
    }, 500);
    watch.unref();
  }
  await import(join(root, 'src', 'cli', 'main.ts'));
} else {
  const bundled = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(bundled)) {
    console.error(`switchyard needs Node >= 22.18 (this is ${process.version}); run \`npm ci\` to install Node 24 locally.`);
    process.exit(1);
  }
  // Node's own flags (e.g. npm start's --max-semi-space-size) go to the gateway's Node too.
  const child = spawn(bundled, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, SWITCHYARD_LAUNCHED: '1' },
  });
  const forward = (signal) => child.kill(signal);
  for (const signal of SIGNALS) process.on(signal, forward);
  child.on('error', (err) => {
    console.error(`switchyard: could not start ${bundled}: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    // Die of the same signal, so that whoever started us sees what happened.
    for (const s of SIGNALS) process.off(s, forward);
    process.kill(process.pid, signal);
  });
}
