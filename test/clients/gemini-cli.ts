import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOpenAIChatEmulator, type OpenAIChatEmulator } from '../emulators/openai-chat-emulator.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { installNpmClient } from './install-npm-client.ts';

// Google's Gemini CLI, run non-interactively (`gemini -p`), against switchyard's Gemini API
// (`GOOGLE_GEMINI_BASE_URL` = the gateway's origin, `GEMINI_API_KEY` = a switchyard key,
// sent as `x-goog-api-key`), with its model served by an upstream that is NOT Google: the
// OpenAI-format emulator. It must finish a plain prompt and a shell-tool round trip (the
// model asks for `run_shell_command`, Gemini CLI runs it and sends the output back as a
// functionResponse, which must reach the upstream as a `tool` message for the call's id).
//
// Gemini CLI 0.61 picks the "gateway" auth type when GOOGLE_GEMINI_BASE_URL is set, then
// refuses it in non-interactive mode ("Invalid auth method selected"): the test selects the
// API-key auth in the CLI's settings file, which still takes the base URL from the env.
//
// Heavy (installs Gemini CLI from npm on first run), so not part of `npm test`:
//   node --test test/clients/gemini-cli.ts
// GEMINI_CLI_VERSION picks the release (default below); SWITCHYARD_CLIENTS_DIR the cache.

const VERSION = process.env.GEMINI_CLI_VERSION ?? '0.61.0';
const MODEL = 'mock-1'; // the bare name of acme/mock-1: resolved by the catalog
const RUN_TIMEOUT_MS = 180_000;

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
    context_length: 1000000
    capabilities: [text, tool_calling, streaming]
    endpoints:
      - provider: local
        model: mock-model
        pricing: { prompt: "0.000001", completion: "0.000002" }
`;
}

interface GeminiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The parsed `--output-format json` result, when stdout was one. */
  result: any;
}

describe(`Gemini CLI ${VERSION} through switchyard's Gemini API to an OpenAI-format upstream`, () => {
  let gemini: string;
  let emu: OpenAIChatEmulator;
  let gw: TestGateway;
  let home: string;

  before(async () => {
    gemini = installNpmClient({ pkg: '@google/gemini-cli', version: VERSION, binary: '@google/gemini-cli/bundle/gemini.js' }, (l) =>
      process.stderr.write(`${l}\n`),
    );
    emu = await startOpenAIChatEmulator();
    gw = await startTestGateway({ yaml: gatewayConfig(emu.baseUrl) });
    home = mkdtempSync(join(tmpdir(), 'switchyard-gemini-home-'));
    mkdirSync(join(home, '.gemini'));
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      }),
    );
  });
  after(async () => {
    await gw?.close();
    await emu?.close();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });
  beforeEach(() => emu.reset());

  function runGemini(args: string[]): Promise<GeminiRun> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      GOOGLE_GEMINI_BASE_URL: gw.origin,
      GEMINI_API_KEY: gw.key,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    };
    return new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [gemini, '-p', ...args, '-m', MODEL, '--output-format', 'json'],
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

  function describeRun(run: GeminiRun): string {
    return `exit ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 3000)}\nupstream requests: ${emu.requests.length}`;
  }

  test('a plain prompt completes', async () => {
    emu.enqueue({ text: 'pong' });
    const run = await runGemini(['Reply with the single word pong.']);
    assert.equal(run.code, 0, describeRun(run));
    assert.equal(run.result?.response?.trim(), 'pong', describeRun(run));
    assert.equal(emu.requests.length, 1, describeRun(run));
    const sent = emu.requests[0]!.body;
    assert.equal(sent.model, 'mock-model');
    assert.equal(sent.stream, true, 'Gemini CLI streams (alt=sse)');
    assert.ok(JSON.stringify(sent.messages).includes('Reply with the single word pong.'));
    assert.ok(sent.tools.length > 0, 'its tools reach the upstream as OpenAI functions');
    process.stderr.write(
      `gemini plain prompt: answer ${JSON.stringify(run.result.response)}; ${sent.tools.length} tools offered upstream\n`,
    );
  });

  test('a shell-tool round trip: run_shell_command is called, run, and its output goes back upstream', async () => {
    emu.enqueue(
      {
        toolCalls: [
          { id: 'call_sh_1', name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo pong', description: 'Print pong' }) },
        ],
      },
      { text: 'The command printed: pong' },
    );
    // --yolo: tools run without asking (there is nobody to ask).
    const run = await runGemini(['Run `echo pong` in the shell and tell me what it printed.', '--yolo']);
    assert.equal(run.code, 0, describeRun(run));
    assert.match(run.result?.response ?? '', /The command printed: pong/, describeRun(run));
    assert.equal(emu.requests.length, 2, describeRun(run));
    const messages = emu.requests[1]!.body.messages as any[];
    const call = messages.find((m) => m.role === 'assistant' && m.tool_calls?.some((c: any) => c.id === 'call_sh_1'));
    assert.ok(call !== undefined, `the call was replayed\n${describeRun(run)}`);
    const result = messages.find((m) => m.role === 'tool' && m.tool_call_id === 'call_sh_1');
    assert.ok(result !== undefined, `the shell output went back as a tool message\n${JSON.stringify(messages.slice(-3))}`);
    assert.match(result.content, /pong/);
    process.stderr.write(
      `gemini shell round trip: tool result ${JSON.stringify(result.content).slice(0, 300)}; answer ${JSON.stringify(run.result.response)}\n`,
    );
  });
});
