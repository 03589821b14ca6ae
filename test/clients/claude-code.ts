import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOpenAIChatEmulator, type OpenAIChatEmulator, type RecordedRequest } from '../emulators/openai-chat-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { installNpmClient } from './install-npm-client.ts';

// Claude Code, run non-interactively (`claude -p`), against switchyard, with its model
// served by an upstream that is NOT Anthropic: the OpenAI-format emulator. It must finish a
// plain prompt and a tool round trip (the model asks for Bash, Claude Code runs it and
// sends the result back). Claude Code's cheap side requests (titles, command checks) go to
// the small fast model, pointed at the sim so they do not consume the scripted answers.
//
// Heavy (installs ~370 MB from npm on first run), so not part of `npm test`:
//   node --test test/clients/claude-code.ts
// CLAUDE_CODE_VERSION picks the release (default below); SWITCHYARD_CLIENTS_DIR the cache.

const VERSION = process.env.CLAUDE_CODE_VERSION ?? '2.1.330';
const MODEL = 'mock-1'; // the bare name of acme/mock-1: resolved by the catalog
const RUN_TIMEOUT_MS = 180_000;

function platformPackage(): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  if (process.platform === 'darwin') return `claude-code-darwin-${arch}`;
  if (process.platform === 'linux') return `claude-code-linux-${arch}${process.env.CLAUDE_CODE_MUSL === '1' ? '-musl' : ''}`;
  throw new Error(`no Claude Code binary for ${process.platform}-${process.arch} here`);
}

function gatewayConfig(emulatorUrl: string): string {
  return `sim: true
providers:
  - id: sim
    options: { chunk_delay_ms: 0 }
  - id: local
    kind: openai
    base_url: ${emulatorUrl}
    api_key: upstream-key
models:
  - id: acme/mock-1
    name: Mock One
    context_length: 200000
    capabilities: [text, tool_calling, streaming]
    endpoints:
      - provider: local
        model: mock-model
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;
}

interface ClaudeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The parsed `--output-format json` result, when stdout was one. */
  result: any;
}

describe(`Claude Code ${VERSION} through switchyard to an OpenAI-format upstream`, () => {
  let claude: string;
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let home: string;

  before(async () => {
    // Claude Code's npm package is a launcher; the real program is the platform package's binary.
    claude = installNpmClient(
      { pkg: '@anthropic-ai/claude-code', version: VERSION, binary: `@anthropic-ai/${platformPackage()}/claude` },
      (l) => process.stderr.write(`${l}\n`),
    );
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: gatewayConfig(emu.baseUrl) });
    home = mkdtempSync(join(tmpdir(), 'switchyard-claude-home-'));
  });
  after(async () => {
    await gw?.close();
    await emu?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });
  beforeEach(() => emu.reset());

  function runClaude(args: string[]): Promise<ClaudeRun> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      ANTHROPIC_BASE_URL: gw.origin,
      ANTHROPIC_AUTH_TOKEN: gw.key,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'switchyard/sim-fast',
      ANTHROPIC_SMALL_FAST_MODEL: 'switchyard/sim-fast',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    return new Promise((resolve) => {
      const child = execFile(
        claude,
        ['-p', ...args, '--output-format', 'json', '--model', MODEL],
        { env, cwd: home, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          let result: any = undefined;
          try {
            result = JSON.parse(stdout);
          } catch {
            // left undefined; the assertion shows stdout
          }
          const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null;
          resolve({ code, stdout, stderr, result });
        },
      );
      child.stdin?.end();
    });
  }

  function describeRun(run: ClaudeRun): string {
    return `exit ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}\nupstream requests: ${emu.requests.length}`;
  }

  /** Upstream requests for the emulator's model (side requests went to the sim). */
  function mainRequests(): RecordedRequest[] {
    return emu.requests.filter((r) => r.body?.model === 'mock-model');
  }

  test('a plain prompt completes', async () => {
    emu.enqueue({ text: 'pong' });
    const run = await runClaude(['Reply with the single word pong.']);
    assert.equal(run.code, 0, describeRun(run));
    assert.equal(run.result?.is_error, false, describeRun(run));
    assert.match(run.result.result, /pong/i);
    const sent = mainRequests();
    assert.ok(sent.length >= 1, describeRun(run));
    assert.ok(JSON.stringify(sent[0]!.body.messages).includes('Reply with the single word pong.'));
    process.stderr.write(`plain prompt: ${sent.length} upstream request(s), result ${JSON.stringify(run.result.result)}\n`);
  });

  test('a tool round trip: Bash is called, run, and its output goes back upstream', async () => {
    emu.enqueue(
      { toolCalls: [{ id: 'call_bash_1', name: 'Bash', arguments: JSON.stringify({ command: 'echo pong', description: 'Print pong' }) }] },
      { text: 'The command printed: pong' },
    );
    const run = await runClaude(['Run `echo pong` with the Bash tool and tell me what it printed.', '--allowedTools', 'Bash(echo:*)']);
    assert.equal(run.code, 0, describeRun(run));
    assert.equal(run.result?.is_error, false, describeRun(run));
    assert.match(run.result.result, /pong/);
    const sent = mainRequests();
    assert.ok(sent.length >= 2, describeRun(run));
    // The offered tools reached the upstream in OpenAI's shape, Bash among them.
    assert.ok(sent[0]!.body.tools.some((t: any) => t.type === 'function' && t.function.name === 'Bash'));
    // The second turn carries the call and its result, which holds the command's output.
    const withResult = sent.find((r) => r.body.messages.some((m: any) => m.role === 'tool' && m.tool_call_id === 'call_bash_1'));
    assert.ok(withResult !== undefined, `no upstream request carried the tool result\n${describeRun(run)}`);
    const msgs = withResult.body.messages;
    const call = msgs.find((m: any) => m.role === 'assistant' && m.tool_calls?.[0]?.id === 'call_bash_1');
    assert.equal(call.tool_calls[0].function.name, 'Bash');
    const result = msgs.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_bash_1');
    assert.match(result.content, /pong/);
    process.stderr.write(
      `tool round trip: ${sent.length} upstream request(s), tool result ${JSON.stringify(result.content)}, result ${JSON.stringify(run.result.result)}\n`,
    );
  });
});
