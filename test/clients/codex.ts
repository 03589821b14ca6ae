import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAnthropicEmulator, type AnthropicEmulator, type RecordedRequest } from '../emulators/anthropic-messages-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { installNpmClient } from './install-npm-client.ts';

// OpenAI's Codex CLI, run non-interactively (`codex exec`), against switchyard's Responses
// endpoint, with its model served by an upstream that is NOT OpenAI: the Anthropic-format
// emulator. It must finish a plain prompt and a tool round trip (the model asks for Codex's
// shell tool, Codex runs the command and sends the output back). Codex speaks nothing but
// the Responses API (`wire_api = "responses"`, reference §6), so this is the endpoint's
// real-client check.
//
// Heavy (installs Codex from npm on first run), so not part of `npm test`:
//   node --test test/clients/codex.ts
// CODEX_VERSION picks the release (default below), SWITCHYARD_CLIENTS_DIR the cache, and
// CODEX_SANDBOX Codex's sandbox (default read-only; `danger-full-access` on hosts without
// user namespaces, where Codex's bubblewrap sandbox cannot start).

const VERSION = process.env.CODEX_VERSION ?? '0.169.0';
const MODEL = 'acme/claude-mock';
const RUN_TIMEOUT_MS = 180_000;

/** The native binary inside the platform package (the npm package itself is a launcher). */
function platformBinary(): string {
  const arm = process.arch === 'arm64';
  if (process.platform === 'linux') {
    return arm
      ? '@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex'
      : '@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex';
  }
  if (process.platform === 'darwin') {
    return arm
      ? '@openai/codex-darwin-arm64/vendor/aarch64-apple-darwin/bin/codex'
      : '@openai/codex-darwin-x64/vendor/x86_64-apple-darwin/bin/codex';
  }
  throw new Error(`no Codex binary for ${process.platform}-${process.arch} here`);
}

function gatewayConfig(emulatorUrl: string): string {
  return `sim: false
providers:
  - id: claude
    kind: anthropic
    base_url: ${emulatorUrl}
    api_key: sk-ant-upstream
models:
  - id: ${MODEL}
    name: Claude Mock
    context_length: 200000
    capabilities: [text, tool_calling, streaming, reasoning]
    endpoints:
      - provider: claude
        model: claude-mock-1
        pricing: { prompt: "0.000003", completion: "0.000015" }
`;
}

interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `--output-last-message`: the agent's final answer. */
  lastMessage: string;
}

/**
 * The arguments of a call to Codex's shell tool that runs `command`, shaped for whichever
 * shell tool this Codex release offers (0.169 offers `exec_command` with `cmd`; older
 * releases `shell_command` or `shell`).
 */
function shellCall(offered: ReadonlySet<string>, command: string): { name: string; arguments: string } {
  if (offered.has('exec_command') || offered.size === 0) return { name: 'exec_command', arguments: JSON.stringify({ cmd: command }) };
  if (offered.has('shell_command')) return { name: 'shell_command', arguments: JSON.stringify({ command }) };
  if (offered.has('shell')) return { name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }) };
  throw new Error(`Codex offered no shell tool this test knows: ${[...offered].join(', ')}`);
}

describe(`Codex ${VERSION} through switchyard's Responses endpoint to an Anthropic-format upstream`, () => {
  let codex: string;
  let emu: AnthropicEmulator;
  let gw: TestGateway;
  let home: string;
  /** Tool names Codex offered in the first run, so the tool run calls one it has. */
  let offered: ReadonlySet<string> = new Set();

  before(async () => {
    codex = installNpmClient({ pkg: '@openai/codex', version: VERSION, binary: platformBinary() }, (l) => process.stderr.write(`${l}\n`));
    emu = await startAnthropicEmulator();
    gw = await startTestGateway({ yaml: gatewayConfig(emu.baseUrl) });
    home = mkdtempSync(join(tmpdir(), 'switchyard-codex-home-'));
  });
  after(async () => {
    await gw?.close();
    await emu?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });
  beforeEach(() => emu.reset());

  /** `codex exec` with a custom provider whose base URL is the gateway (reference §6), key from env. */
  function runCodex(prompt: string): Promise<CodexRun> {
    const lastFile = join(home, 'last-message.txt');
    rmSync(lastFile, { force: true });
    const provider = `model_providers.gw={name="switchyard",base_url="${gw.baseUrl}",env_key="SWITCHYARD_API_KEY",wire_api="responses"}`;
    const args = [
      'exec',
      '--skip-git-repo-check',
      '--ephemeral',
      '-m',
      MODEL,
      '-s',
      process.env.CODEX_SANDBOX ?? 'read-only',
      '-c',
      'model_provider="gw"',
      '-c',
      provider,
      '--output-last-message',
      lastFile,
      prompt,
    ];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      CODEX_HOME: home,
      SWITCHYARD_API_KEY: gw.key,
    };
    return new Promise((resolve) => {
      const child = execFile(
        codex,
        args,
        { env, cwd: home, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          let lastMessage = '';
          try {
            lastMessage = readFileSync(lastFile, 'utf8');
          } catch {
            // left empty; the assertion shows stdout and stderr
          }
          const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null;
          resolve({ code, stdout, stderr, lastMessage });
        },
      );
      // `codex exec` also reads stdin for more prompt text: give it an empty one.
      child.stdin?.end();
    });
  }

  function describeRun(run: CodexRun): string {
    return `exit ${run.code}\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}\nupstream requests: ${emu.requests.length}`;
  }

  function toolResults(request: RecordedRequest): Array<{ tool_use_id: string; content: unknown }> {
    const out: Array<{ tool_use_id: string; content: unknown }> = [];
    for (const m of request.body.messages) {
      if (m.role !== 'user' || typeof m.content === 'string') continue;
      for (const block of m.content) if (block.type === 'tool_result') out.push(block);
    }
    return out;
  }

  test('a plain prompt completes', async () => {
    emu.enqueue({ text: 'pong' });
    const run = await runCodex('Reply with the single word pong.');
    assert.equal(run.code, 0, describeRun(run));
    assert.equal(run.lastMessage.trim(), 'pong', describeRun(run));
    assert.equal(emu.requests.length, 1, describeRun(run));
    const sent = emu.requests[0]!;
    assert.match(sent.path, /^\/v1\/messages/, 'the upstream spoke the Anthropic format');
    assert.ok(JSON.stringify(sent.body.messages).includes('Reply with the single word pong.'));
    offered = new Set(sent.body.tools.map((t: { name: string }) => t.name));
    process.stderr.write(
      `codex plain prompt: answer ${JSON.stringify(run.lastMessage.trim())}; tools offered upstream: ${[...offered].join(', ')}\n`,
    );
  });

  test('a tool round trip: Codex runs the shell command and its output goes back upstream', async () => {
    const call = shellCall(offered, 'echo pong');
    emu.enqueue(
      { toolCalls: [{ id: 'toolu_codex_1', name: call.name, arguments: call.arguments }] },
      { text: 'The command printed: pong' },
    );
    const run = await runCodex('Run `echo pong` in the shell and tell me what it printed.');
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.lastMessage, /The command printed: pong/, describeRun(run));
    assert.equal(emu.requests.length, 2, describeRun(run));
    // The second turn replays the call and carries the command's real output.
    const second = emu.requests[1]!;
    const replayed = second.body.messages.find(
      (m: any) =>
        m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b: any) => b.type === 'tool_use' && b.id === 'toolu_codex_1'),
    );
    assert.ok(replayed !== undefined, `the tool call was not replayed\n${describeRun(run)}`);
    const results = toolResults(second).filter((r) => r.tool_use_id === 'toolu_codex_1');
    assert.equal(results.length, 1, describeRun(run));
    const text = typeof results[0]!.content === 'string' ? results[0]!.content : JSON.stringify(results[0]!.content);
    assert.match(text, /pong/);
    process.stderr.write(
      `codex tool round trip via ${call.name}: tool result ${JSON.stringify(text)}; answer ${JSON.stringify(run.lastMessage.trim())}\n`,
    );
  });
});
