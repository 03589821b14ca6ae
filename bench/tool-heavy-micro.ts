// CPU of the per-request work on the tool-heavy agent request (bench/lib/tool-heavy-request.ts),
// in process, stage by stage: what the gateway does with the large repeated prompt on every
// turn. Each iteration parses and decodes the body anew (as the gateway does, so every schema
// object is new and nothing is cached across requests but what the gateway itself keeps),
// then runs the stages the tool-heavy profile names: the token estimate of admission, the
// moderation rules (the bench config's two patterns, one account, so its memo warms as in
// the gateway), sticky routing's prompt-cache keys and the upstream body's encoding.
//
//   node bench/tool-heavy-micro.ts [--root CHECKOUT] [--iterations N] [--runs R]
//
// --root: the same stages of another checkout (node_modules linked), to compare with.

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { toolHeavyBody } from './lib/tool-heavy-request.ts';

const { values: flags } = parseArgs({ options: { root: { type: 'string' }, iterations: { type: 'string' }, runs: { type: 'string' } } });
const root = resolve(flags.root ?? new URL('..', import.meta.url).pathname);
const iterations = Number(flags.iterations ?? 2000);
const runs = Number(flags.runs ?? 3);
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(resolve(root, path)).href)) as T;

interface Req {
  tools?: Array<{ parameters: Record<string, unknown> }>;
}
const { decodeChatRequest } = await load<{ decodeChatRequest: (body: unknown) => Req }>('src/front/openai-chat/decode-chat-request.ts');
const { admittedPromptTokens } = await load<{ admittedPromptTokens: (req: Req) => number }>('src/canonical/estimate-tokens.ts');
const { promptCacheKeys } = await load<{ promptCacheKeys: (account: string, model: string, req: Req) => { store: string } }>(
  'src/routing/sticky/prompt-cache-keys.ts',
);
const { schemaJson } = await load<{ schemaJson: (schema: Record<string, unknown>) => string }>('src/canonical/schema-json.ts');
const { compileModerationPattern } = await load<{ compileModerationPattern: (source: string) => unknown }>(
  'src/config/moderation-pattern.ts',
);
interface ModeratorLike {
  check(req: Req, signal: AbortSignal, scope: string): Promise<{ kind: string }>;
}
const { Moderator } = await load<{ Moderator: new (rules: unknown[], upstream: null, client: unknown, max: number) => ModeratorLike }>(
  'src/moderation/moderator.ts',
);
const { buildOpenAIChatBody, encodeOpenAIChatBody } = await load<{
  buildOpenAIChatBody: (req: Req, endpoint: unknown) => unknown;
  encodeOpenAIChatBody: (body: unknown) => string;
}>('src/providers/openai/convert-to-openai-chat-request.ts');

const body = toolHeavyBody('bench/model', true);
const rules = [{ name: 'bench-rule', patterns: ['never-in-a-bench-prompt', 'forbidden\\s+words'].map(compileModerationPattern) }];
const moderator = new Moderator(rules, null, null, 1_000_000);
const endpoint = {
  id: 'local/mock-model',
  provider: { id: 'local', kind: 'openai' },
  upstreamModel: 'mock-model',
  supportedParameters: new Set(['tools', 'tool_choice', 'temperature', 'max_tokens', 'stream']),
};
const signal = new AbortController().signal;

type Stage = 'decode' | 'schemas' | 'estimate' | 'moderate' | 'stickyKeys' | 'encode';
const STAGES: Stage[] = ['decode', 'schemas', 'estimate', 'moderate', 'stickyKeys', 'encode'];

/** CPU time (µs) of `f` applied to every request of the batch: user + system, so others' work on a shared machine is not counted. */
async function cpu<T>(batch: readonly T[], f: (req: T) => number | Promise<number>): Promise<[number, number]> {
  let sink = 0;
  const t = process.cpuUsage();
  for (const req of batch) sink += await f(req);
  const d = process.cpuUsage(t);
  return [d.user + d.system, sink];
}

// Stage by stage over batches of fresh requests (each stage's loop timed as a whole by the
// process's CPU time, which a shared machine's other load does not inflate as wall time).
async function run(n: number): Promise<Record<Stage, number>> {
  const us: Record<Stage, number> = { decode: 0, schemas: 0, estimate: 0, moderate: 0, stickyKeys: 0, encode: 0 };
  let sink = 0;
  const BATCH = 100;
  for (let done = 0; done < n; done += BATCH) {
    const t = process.cpuUsage();
    const batch = Array.from({ length: BATCH }, () => decodeChatRequest(JSON.parse(body)));
    const d = process.cpuUsage(t);
    us.decode += d.user + d.system;
    const stages: Array<[Stage, (req: Req) => number | Promise<number>]> = [
      // The schemas' one serialization (schema-json.ts), made by whichever stage reads them first.
      ['schemas', (req) => (req.tools ?? []).reduce((a, tool) => a + schemaJson(tool.parameters).length, 0)],
      ['estimate', (req) => admittedPromptTokens(req)],
      [
        'moderate',
        async (req) => {
          const verdict = await moderator.check(req, signal, 'acct_bench');
          if (verdict.kind !== 'clear') throw new Error(`moderation: ${verdict.kind}`);
          return 1;
        },
      ],
      ['stickyKeys', (req) => promptCacheKeys('acct_bench', 'bench/model', req).store.length],
      ['encode', (req) => encodeOpenAIChatBody(buildOpenAIChatBody(req, endpoint)).length],
    ];
    for (const [stage, f] of stages) {
      const [spent, s] = await cpu(batch, f);
      us[stage] += spent;
      sink += s;
    }
  }
  if (sink === 0) throw new Error('nothing measured');
  const out = {} as Record<Stage, number>;
  for (const s of STAGES) out[s] = us[s] / n;
  return out;
}

await run(Math.min(500, iterations)); // warm: compiled code, the memo's entries
process.stdout.write(`${root}: µs per tool-heavy request (${iterations} iterations a run)\n`);
process.stdout.write(`run  ${STAGES.map((s) => s.padStart(10)).join(' ')}  all but decode\n`);
for (let r = 0; r < runs; r++) {
  const res = await run(iterations);
  const total = res.schemas + res.estimate + res.moderate + res.stickyKeys + res.encode;
  process.stdout.write(
    `${String(r + 1).padEnd(4)} ${STAGES.map((s) => res[s].toFixed(1).padStart(10)).join(' ')}  ${total.toFixed(1).padStart(8)}\n`,
  );
}
