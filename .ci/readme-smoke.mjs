// README's first start, as a newcomer runs it on a fresh clone (after `npm ci`):
// `npm start`, README's curl with the key of the first start, then SIGTERM to npm, after
// which no process of the tree may be left and README's port must be free within 10 s.
// Its output is a pipe here, not a terminal: the key is never printed, and is read from
// the file whose path the start printed (README says so).
// Plain JavaScript: it runs on whatever Node the machine has.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const START = 'npm ci && npm start';
const PORT = 8080;
const STOP_WITHIN_MS = 10_000;
const START_WITHIN_MS = 120_000;

function fail(message) {
  console.error(`readme-smoke: FAIL: ${message}`);
  process.exit(1);
}

// --- What README says -------------------------------------------------------------
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trim());
const startSection = readme.slice(readme.indexOf('## Start it'));
const startBlock = /```sh\n([\s\S]*?)```/.exec(startSection)?.[1].trim();
if (startBlock !== START)
  fail(`README's start command is now ${JSON.stringify(startBlock)}; this check runs ${JSON.stringify(START)}: update one or the other`);
if (!readme.includes(`http://127.0.0.1:${PORT}`)) fail(`README no longer says the gateway listens on 127.0.0.1:${PORT}`);
const curl = blocks.find((b) => b.startsWith(`curl http://127.0.0.1:${PORT}/`));
if (curl === undefined || !curl.includes('<the printed key>')) fail("README's curl example (with <the printed key>) is gone");

// --- Start it ---------------------------------------------------------------------
if (await accepts(PORT)) fail(`port ${PORT}, where README says the gateway listens, is already taken on this machine`);
const env = { ...process.env };
for (const name of ['PORT', 'HOST', 'SWITCHYARD_DATA_DIR', 'DATABASE_URL', 'SWITCHYARD_CONFIG']) delete env[name];
console.log(`readme-smoke: npm start (in ${ROOT})`);
const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
let tree = [];
const exited = new Promise((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
const keyFile = await new Promise((resolve) => {
  const timer = setTimeout(() => resolve(null), START_WITHIN_MS);
  const onData = (d) => {
    output += d.toString();
    const k = /^ {4}(\/.*first-start-key\.txt)$/m.exec(output);
    if (k && /^Try: .*\n.*\n/m.test(output)) {
      clearTimeout(timer);
      resolve(k[1]);
    }
  };
  npm.stdout.on('data', onData);
  npm.stderr.on('data', onData);
  void exited.then(() => resolve(null));
});
if (keyFile === null) fail(`npm start named no key file (a fresh clone has no ./data yet):\n${output}`);
if (/sk-sy-v1-/.test(output)) fail(`npm start printed a key to output that is not a terminal:\n${output}`);
if ((statSync(keyFile).mode & 0o777) !== 0o600)
  fail(`${keyFile} is not readable by this user only (mode ${(statSync(keyFile).mode & 0o777).toString(8)})`);
const key = readFileSync(keyFile, 'utf8').trim();
tree = [npm.pid, ...descendants(npm.pid)];
console.log(`readme-smoke: listening, key in ${keyFile}; process tree ${tree.join(' ')}`);

// --- README's curl ----------------------------------------------------------------
try {
  const command = `${curl.replace('<the printed key>', key)} --silent --show-error --output /dev/null --write-out '%{http_code}'`;
  const status = execFileSync('bash', ['-c', command], { encoding: 'utf8' }).trim();
  if (status !== '200') failAndKill(`README's curl answered ${status}, not 200`);
  console.log("readme-smoke: README's curl answered 200");
} catch (err) {
  failAndKill(`README's curl did not run: ${err.message}`);
}

// --- SIGTERM: the whole tree goes, the port is free -------------------------------
npm.kill('SIGTERM');
const stopBy = Date.now() + STOP_WITHIN_MS;
let left = [];
while (Date.now() < stopBy) {
  left = tree.filter(alive).map((p) => `pid ${p}`);
  if (await accepts(PORT)) left.push(`port ${PORT}`);
  if (left.length === 0) break;
  await new Promise((r) => setTimeout(r, 100));
}
if (left.length > 0) failAndKill(`${STOP_WITHIN_MS / 1000} s after SIGTERM to npm, still there: ${left.join(', ')}\n${output}`);
console.log(`readme-smoke: OK (npm ${JSON.stringify(await exited)}; every process gone, port ${PORT} free)`);
process.exit(0);

// --- helpers ----------------------------------------------------------------------
function failAndKill(message) {
  for (const pid of tree.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  fail(message);
}

function descendants(pid) {
  const out = [];
  let tasks;
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    let children = '';
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch {
      // the thread ended meanwhile: no children
    }
    for (const c of children.split(' ').filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
