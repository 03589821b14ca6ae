import type { StreamPart } from '../../canonical/stream-part.ts';
import type { SimOutput } from './limit-sim-output.ts';

export interface SimAnswerMeta {
  id: string;
  model: string;
  /** Signature for the reasoning; used only when the reasoning ran to its end. */
  signature: string;
  inputTokens: number;
}

/** The answer as stream parts, in the order a real upstream sends them. */
export function buildSimParts(output: SimOutput, meta: SimAnswerMeta): StreamPart[] {
  const parts: StreamPart[] = [{ type: 'stream-start', id: meta.id, model: meta.model }];
  for (const text of output.reasoningChunks) parts.push({ type: 'reasoning-delta', text });
  if (output.reasoningChunks.length > 0 && output.reasoningComplete) parts.push({ type: 'reasoning-signature', signature: meta.signature });
  for (const text of output.textChunks) parts.push({ type: 'text-delta', text });
  for (let index = 0; index < output.toolCalls.length; index++) {
    const call = output.toolCalls[index]!;
    parts.push({ type: 'tool-call-start', index, id: call.id, name: call.name });
    for (const argumentsDelta of call.fragments) parts.push({ type: 'tool-call-delta', index, argumentsDelta });
    parts.push({ type: 'tool-call-end', index });
  }
  parts.push({ type: 'finish', reason: output.finish });
  parts.push({
    type: 'usage',
    usage: { input: meta.inputTokens, cacheRead: 0, cacheWrite: 0, output: output.outputTokens, reasoning: output.reasoningTokens },
  });
  return parts;
}
