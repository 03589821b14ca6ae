import {
  startBedrockEmulator,
  TEST_AWS_CREDENTIALS,
  type BedrockAnswerStep,
  type BedrockEmulatorStep,
} from '../../emulators/bedrock-emulator.ts';
import type { ScriptedAnswer, ScriptedFault, Upstream } from '../conformance-types.ts';
import { emulatorUpstream } from './emulator-upstream.ts';

// The Bedrock emulator, scripted in canonical terms: reasoning with a signature, tool-use
// blocks, Converse stop reasons, and usage whose input excludes cache reads. The gateway
// finds the emulator's credentials where it finds AWS credentials: the environment (this
// test process's own).

const STOP: Readonly<Record<NonNullable<ScriptedAnswer['finish']>, string>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'content_filtered',
};

export async function startBedrockUpstream(): Promise<Upstream> {
  process.env.AWS_ACCESS_KEY_ID = TEST_AWS_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = TEST_AWS_CREDENTIALS.secretAccessKey;
  return emulatorUpstream(await startBedrockEmulator(), (step) => ('fault' in step ? faultStep(step) : answerStep(step)));
}

function answerStep(answer: ScriptedAnswer): BedrockAnswerStep {
  const step: BedrockAnswerStep = {};
  if (answer.reasoning !== undefined) {
    step.reasoning = answer.reasoning;
    step.signature = 'EsEC-conformance-signature';
  }
  if (answer.text !== undefined) step.text = answer.text;
  if (answer.textChunks !== undefined) step.chunks = answer.textChunks;
  if (answer.toolCalls !== undefined) step.toolCalls = answer.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
  if (answer.finish !== undefined) step.stopReason = STOP[answer.finish];
  if (answer.usage !== undefined) {
    const cacheRead = answer.usage.cacheRead ?? 0;
    step.usage = { inputTokens: answer.usage.input - cacheRead, cacheReadInputTokens: cacheRead, outputTokens: answer.usage.output };
  }
  return step;
}

function faultStep(fault: ScriptedFault): BedrockEmulatorStep {
  switch (fault.fault) {
    case 'rejected':
      return {
        fault: 'status',
        status: 400,
        body: { message: fault.message },
        headers: { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
      };
    case 'rate-limited':
      return { fault: 'rate-limit', retryAfterSeconds: fault.retryAfterSeconds };
    case 'server-error':
      return { fault: 'status', status: 503 };
    case 'mid-stream':
      // messageStart, the first text delta: then the exception frame.
      return { fault: 'stream-error', afterChunks: 2 };
    default:
      throw new Error(`unknown fault ${JSON.stringify(fault satisfies never)}`);
  }
}
