import type { Endpoint } from '../../catalog/types.ts';
import { parseRawBody, unusableAnswerError } from '../http/upstream-error.ts';
import type { PartSink } from '../types.ts';
import type { ConverseBlockWire, ConverseResponseWire } from './bedrock-wire-types.ts';
import { convertConverseUsage } from './convert-converse-usage.ts';
import { mapConverseStopReason } from './map-converse-stop-reason.ts';

/**
 * A whole Converse answer as stream parts, in the order ConverseStream would give them, so
 * the fold of these parts equals the fold of the same answer streamed. Converse gives no
 * response id (it is the `x-amzn-requestid` header) and names no model.
 */
export function convertConverseResponse(body: unknown, endpoint: Endpoint, emit: PartSink): void {
  const response = typeof body === 'string' ? parseRawBody(body) : body;
  const r = response as ConverseResponseWire | null;
  const content = typeof r === 'object' && r !== null ? r.output?.message?.content : undefined;
  if (!Array.isArray(content)) {
    emit({ type: 'error', error: unusableAnswerError(endpoint, 'upstream returned an invalid Converse answer', response) });
    return;
  }
  emit({ type: 'stream-start' });
  let toolCount = 0;
  for (const block of content as unknown[]) {
    if (typeof block !== 'object' || block === null) continue;
    if (emitBlock(block, toolCount, emit)) toolCount++;
  }
  emit({ type: 'finish', reason: mapConverseStopReason(typeof r!.stopReason === 'string' ? r!.stopReason : null, toolCount > 0) });
  if (typeof r!.usage === 'object' && r!.usage !== null) emit({ type: 'usage', usage: convertConverseUsage(r!.usage) });
}

/** Emits one content block; true when it was a tool call. Citations, guard content and unknown blocks have no canonical home. */
function emitBlock(block: ConverseBlockWire, toolIndex: number, emit: PartSink): boolean {
  if (typeof block.text === 'string') {
    if (block.text.length > 0) emit({ type: 'text-delta', text: block.text });
    return false;
  }
  const reasoning = block.reasoningContent;
  if (typeof reasoning === 'object' && reasoning !== null) {
    const rt = reasoning.reasoningText;
    if (typeof rt === 'object' && rt !== null) {
      if (typeof rt.text === 'string' && rt.text.length > 0) emit({ type: 'reasoning-delta', text: rt.text });
      if (typeof rt.signature === 'string' && rt.signature.length > 0) emit({ type: 'reasoning-signature', signature: rt.signature });
    } else if (typeof reasoning.redactedContent === 'string') {
      emit({ type: 'reasoning-redacted', data: reasoning.redactedContent });
    }
    return false;
  }
  const tool = block.toolUse;
  if (typeof tool === 'object' && tool !== null) {
    const id = typeof tool.toolUseId === 'string' ? tool.toolUseId : `tooluse_${toolIndex}`;
    emit({ type: 'tool-call-start', index: toolIndex, id, name: typeof tool.name === 'string' ? tool.name : '' });
    const input = typeof tool.input === 'object' && tool.input !== null ? tool.input : {};
    emit({ type: 'tool-call-delta', index: toolIndex, argumentsDelta: JSON.stringify(input) });
    emit({ type: 'tool-call-end', index: toolIndex });
    return true;
  }
  return false;
}
