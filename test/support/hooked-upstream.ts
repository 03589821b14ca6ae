import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OpenAI-format upstream for `emulatorConfig` (test-gateway.ts) whose test runs code the
// moment a request arrives, before it is answered: to make the gateway's database refuse
// writes, or its writer thread die, while that request is in flight.

export interface HookedUpstream {
  baseUrl: string;
  calls: number;
  /** Runs when the next request arrives, before the upstream answers it; a promise returned holds the answer until it settles. */
  onNextRequest: (() => void | Promise<void>) | null;
  close(): Promise<void>;
}

/** An OpenAI-format upstream (usage 100 prompt + 20 completion tokens) with a hook on arrival. */
export async function startHookedUpstream(): Promise<HookedUpstream> {
  const state: HookedUpstream = { baseUrl: '', calls: 0, onNextRequest: null, close: async () => {} };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      state.calls++;
      const hook = state.onNextRequest;
      state.onNextRequest = null;
      const held = hook?.();
      if (held instanceof Promise) void held.then(answer, answer);
      else answer();
    });
    function answer(): void {
      const body = JSON.parse(text) as { stream?: boolean; model: string };
      const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
      const base = { id: `chatcmpl-${state.calls}`, created: 1_700_000_000, model: body.model };
      if (body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: 'the paid answer' }, finish_reason: 'stop' }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (o: unknown): string => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...(o as object) })}\n\n`;
      res.end(
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'the paid ' }, finish_reason: null }] }) +
          chunk({ choices: [{ index: 0, delta: { content: 'answer' }, finish_reason: null }] }) +
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
          chunk({ choices: [], usage }) +
          'data: [DONE]\n\n',
      );
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}
