import {
  startAnthropicEmulator,
  type AnswerStep,
  type AnthropicEmulatorOptions,
  type EmulatorStep,
} from '../../emulators/anthropic-messages-emulator.ts';
import type { ScriptedAnswer, ScriptedFault, Upstream } from '../conformance-types.ts';
import { emulatorUpstream } from './emulator-upstream.ts';

// The Anthropic Messages emulator, scripted in canonical terms: thinking blocks with a
// signature for reasoning, tool_use blocks, stop reasons, and usage whose input excludes
// cache reads (Anthropic's convention).

const STOP: Readonly<Record<NonNullable<ScriptedAnswer['finish']>, string>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

export async function startAnthropicUpstream(options: AnthropicEmulatorOptions = {}): Promise<Upstream> {
  return emulatorUpstream(await startAnthropicEmulator(options), (step) => ('fault' in step ? faultStep(step) : answerStep(step)));
}

function answerStep(answer: ScriptedAnswer): AnswerStep {
  const step: AnswerStep = {};
  if (answer.reasoning !== undefined) {
    step.thinking = answer.reasoning;
    step.signature = 'EsEC-conformance-signature';
  }
  if (answer.text !== undefined) step.text = answer.text;
  if (answer.textChunks !== undefined) step.chunks = answer.textChunks;
  if (answer.toolCalls !== undefined) step.toolCalls = answer.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  if (answer.finish !== undefined) step.stopReason = STOP[answer.finish];
  if (answer.usage !== undefined) {
    const cacheRead = answer.usage.cacheRead ?? 0;
    step.usage = { input_tokens: answer.usage.input - cacheRead, cache_read_input_tokens: cacheRead, output_tokens: answer.usage.output };
    if (answer.usage.reasoning !== undefined) step.usage.thinking_tokens = answer.usage.reasoning;
  }
  return step;
}

function faultStep(fault: ScriptedFault): EmulatorStep {
  switch (fault.fault) {
    case 'rejected':
      return { fault: 'status', status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: fault.message } } };
    case 'rate-limited':
      return { fault: 'rate-limit', retryAfterSeconds: fault.retryAfterSeconds };
    case 'server-error':
      return { fault: 'status', status: 529 };
    case 'mid-stream':
      // message_start, content_block_start, ping, the first text delta: then the error.
      return { fault: 'stream-error', afterChunks: 4 };
    default:
      throw new Error(`unknown fault ${JSON.stringify(fault satisfies never)}`);
  }
}
