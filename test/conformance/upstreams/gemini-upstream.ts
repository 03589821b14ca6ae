import {
  startGeminiEmulator,
  type GeminiAnswerStep,
  type GeminiEmulatorOptions,
  type GeminiEmulatorStep,
} from '../../emulators/gemini-emulator.ts';
import type { ScriptedAnswer, ScriptedFault, Upstream } from '../conformance-types.ts';
import { emulatorUpstream } from './emulator-upstream.ts';

// The Gemini emulator, scripted in canonical terms: thoughts for reasoning, whole function
// calls (the first one signed), Gemini's finish reasons and usage arithmetic.

const FINISH: Readonly<Record<NonNullable<ScriptedAnswer['finish']>, string>> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
};

export async function startGeminiUpstream(options: GeminiEmulatorOptions): Promise<Upstream> {
  return emulatorUpstream(await startGeminiEmulator(options), (step) => ('fault' in step ? faultStep(step) : answerStep(step)));
}

function answerStep(answer: ScriptedAnswer): GeminiAnswerStep {
  const step: GeminiAnswerStep = {};
  if (answer.text !== undefined) step.text = answer.text;
  if (answer.textChunks !== undefined) step.chunks = answer.textChunks;
  if (answer.reasoning !== undefined) step.thoughts = answer.reasoning;
  if (answer.toolCalls !== undefined) {
    step.functionCalls = answer.toolCalls.map((c) => {
      const call: { name: string; args: Record<string, unknown>; thoughtSignature?: string } = {
        name: c.name,
        args: JSON.parse(c.arguments) as Record<string, unknown>,
      };
      if (c.signature !== undefined) call.thoughtSignature = c.signature;
      return call;
    });
  }
  if (answer.finish !== undefined) step.finishReason = FINISH[answer.finish];
  if (answer.usage !== undefined) {
    const reasoning = answer.usage.reasoning ?? 0;
    step.usage = {
      promptTokenCount: answer.usage.input,
      candidatesTokenCount: answer.usage.output - reasoning,
      thoughtsTokenCount: reasoning,
    };
    if (answer.usage.cacheRead !== undefined) step.usage.cachedContentTokenCount = answer.usage.cacheRead;
  }
  return step;
}

function faultStep(fault: ScriptedFault): GeminiEmulatorStep {
  switch (fault.fault) {
    case 'rejected':
      return { fault: 'status', status: 400, body: { error: { code: 400, message: fault.message, status: 'INVALID_ARGUMENT' } } };
    case 'rate-limited':
      return { fault: 'rate-limit', retryAfterSeconds: fault.retryAfterSeconds };
    case 'server-error':
      return {
        fault: 'status',
        status: 503,
        body: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
      };
    case 'mid-stream':
      return { fault: 'stream-error', afterChunks: 1 };
    default:
      throw new Error(`unknown fault ${JSON.stringify(fault satisfies never)}`);
  }
}
