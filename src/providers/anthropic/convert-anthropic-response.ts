import type { Endpoint } from '../../catalog/types.ts';
import { parseRawBody, unusableAnswerError } from '../http/upstream-error.ts';
import type { PartSink } from '../types.ts';
import type { AnthropicContentBlockWire, AnthropicMessageWire, AnthropicUsageWire } from './anthropic-wire-types.ts';
import { convertAnthropicUsage } from './convert-anthropic-usage.ts';
import { anthropicEventError } from './decode-anthropic-error.ts';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';

/**
 * A whole Anthropic `Message` as stream parts, in the order its stream would give them, so
 * the fold of these parts equals the fold of the same answer streamed. `body` is the parsed
 * JSON, or the text when it did not parse.
 */
export function convertAnthropicResponse(body: unknown, endpoint: Endpoint, emit: PartSink): void {
  const message = typeof body === 'string' ? parseRawBody(body) : body;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    emit({ type: 'error', error: unusableAnswerError(endpoint, 'upstream returned an invalid message', message) });
    return;
  }
  const m = message as AnthropicMessageWire;
  if (m.type === 'error') {
    emit({ type: 'error', error: anthropicEventError(endpoint, m) });
    return;
  }
  if (!Array.isArray(m.content)) {
    emit({ type: 'error', error: unusableAnswerError(endpoint, 'upstream returned an invalid message', m) });
    return;
  }

  emit({ type: 'stream-start', id: typeof m.id === 'string' ? m.id : undefined, model: typeof m.model === 'string' ? m.model : undefined });
  let toolCount = 0;
  for (const block of m.content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    if (emitBlock(block, toolCount, emit)) toolCount++;
  }
  const stopReason = typeof m.stop_reason === 'string' ? m.stop_reason : null;
  const stopSequence = typeof m.stop_sequence === 'string' ? m.stop_sequence : null;
  emit({ type: 'finish', reason: mapAnthropicStopReason(stopReason, stopSequence, toolCount > 0) });
  if (typeof m.usage === 'object' && m.usage !== null) emit({ type: 'usage', usage: convertAnthropicUsage(m.usage as AnthropicUsageWire) });
}

/** Emits one content block; true when it was a tool call. Server-tool and unknown blocks have no canonical home. */
function emitBlock(block: AnthropicContentBlockWire, toolIndex: number, emit: PartSink): boolean {
  switch (block.type) {
    case 'text':
      if (typeof block.text === 'string' && block.text.length > 0) emit({ type: 'text-delta', text: block.text });
      return false;
    case 'thinking':
      if (typeof block.thinking === 'string' && block.thinking.length > 0) emit({ type: 'reasoning-delta', text: block.thinking });
      if (typeof block.signature === 'string' && block.signature.length > 0)
        emit({ type: 'reasoning-signature', signature: block.signature });
      return false;
    case 'redacted_thinking':
      if (typeof block.data === 'string') emit({ type: 'reasoning-redacted', data: block.data });
      return false;
    case 'tool_use': {
      const id = typeof block.id === 'string' ? block.id : `toolu_${toolIndex}`;
      emit({ type: 'tool-call-start', index: toolIndex, id, name: typeof block.name === 'string' ? block.name : '' });
      const input = typeof block.input === 'object' && block.input !== null ? block.input : {};
      emit({ type: 'tool-call-delta', index: toolIndex, argumentsDelta: JSON.stringify(input) });
      emit({ type: 'tool-call-end', index: toolIndex });
      return true;
    }
    default:
      return false;
  }
}
