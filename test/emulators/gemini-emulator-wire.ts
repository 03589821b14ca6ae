// The Gemini emulator's wire: the documented request rules it enforces, and its answers as
// GenerateContentResponse chunks (a non-streamed answer is the chunks merged into one).

import type { GeminiAnswerStep } from './gemini-emulator.ts';
import { splitText } from './split-text.ts';

const SIGNATURE_MISSING =
  'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance.';

/** The answer as stream chunks, shaped like the recorded ones: incremental parts, running usage. */
export function answerChunks(
  step: GeminiAnswerStep,
  model: string,
  promptTokens: number,
  responseId: string,
): Array<Record<string, unknown>> {
  const modelVersion = model;
  const u = step.usage ?? {};
  const prompt = u.promptTokenCount ?? promptTokens;
  const thoughtsTotal = u.thoughtsTokenCount ?? (step.thoughts !== undefined ? estimate(step.thoughts) : 0);
  const candidatesTotal =
    u.candidatesTokenCount ?? Math.max(1, estimate(step.text ?? '') + estimate(JSON.stringify(step.functionCalls ?? [])));
  const usageAt = (candidates: number, thoughts: number): Record<string, unknown> => {
    const usage: Record<string, unknown> = { promptTokenCount: prompt };
    if (candidates > 0) usage.candidatesTokenCount = candidates;
    const toolUse = u.toolUsePromptTokenCount ?? 0;
    if (toolUse > 0) usage.toolUsePromptTokenCount = toolUse;
    usage.totalTokenCount = prompt + candidates + thoughts + toolUse;
    if (u.cachedContentTokenCount !== undefined) usage.cachedContentTokenCount = u.cachedContentTokenCount;
    usage.promptTokensDetails = [{ modality: 'TEXT', tokenCount: prompt }];
    if (thoughts > 0) usage.thoughtsTokenCount = thoughts;
    return usage;
  };
  if (step.blockReason !== undefined) {
    return [{ promptFeedback: { blockReason: step.blockReason }, usageMetadata: usageAt(0, 0), modelVersion, responseId }];
  }
  const partsPerChunk: Array<Array<Record<string, unknown>>> = [];
  if (step.thoughts !== undefined && step.thoughts.length > 0) {
    for (const piece of splitText(step.thoughts, undefined)) partsPerChunk.push([{ text: piece, thought: true }]);
  }
  const thoughtChunks = partsPerChunk.length;
  if (step.text !== undefined && step.text.length > 0) {
    for (const piece of splitText(step.text, step.chunks)) partsPerChunk.push([{ text: piece }]);
  }
  const calls = step.functionCalls ?? [];
  if (calls.length > 0) {
    // Parallel calls arrive together, each whole; only the first is signed.
    partsPerChunk.push(
      calls.map((c) => {
        const part: Record<string, unknown> = {
          functionCall: c.id === undefined ? { name: c.name, args: c.args } : { name: c.name, args: c.args, id: c.id },
        };
        if (c.thoughtSignature !== undefined) part.thoughtSignature = c.thoughtSignature;
        return part;
      }),
    );
  }
  const finish = step.finishReason === undefined ? 'STOP' : step.finishReason;
  if (step.trailingSignature !== undefined || partsPerChunk.length === 0) {
    const trailing: Record<string, unknown> = { text: '' };
    if (step.trailingSignature !== undefined) trailing.thoughtSignature = step.trailingSignature;
    partsPerChunk.push([trailing]);
  }
  const answerCount = Math.max(1, partsPerChunk.length - thoughtChunks);
  return partsPerChunk.map((parts, i) => {
    const last = i === partsPerChunk.length - 1;
    const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
    if (last && finish !== null) candidate.finishReason = finish;
    const answered = i < thoughtChunks ? 0 : Math.ceil((candidatesTotal * (i - thoughtChunks + 1)) / answerCount);
    const thought = i < thoughtChunks ? Math.ceil((thoughtsTotal * (i + 1)) / thoughtChunks) : thoughtsTotal;
    return { candidates: [candidate], usageMetadata: usageAt(last ? candidatesTotal : answered, thought), modelVersion, responseId };
  });
}

/** Documented request rules the gateway must not break; null when the body is fine. */
export function validateGeminiRequest(body: any, model: string): string | null {
  if (typeof body !== 'object' || body === null || !Array.isArray(body.contents)) {
    return 'Invalid JSON payload received. Expected an object with "contents".';
  }
  if (body.contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified';
  const thinking = body.generationConfig?.thinkingConfig;
  if (thinking !== undefined && thinking.thinkingBudget !== undefined && thinking.thinkingLevel !== undefined) {
    return 'You can only set only one of thinking budget and thinking level.';
  }
  for (const content of body.contents) {
    if (content?.role !== 'user' && content?.role !== 'model') return `Please use a valid role: user, model.`;
    if (!Array.isArray(content.parts) || content.parts.length === 0) return 'contents.parts must not be empty.';
    if (content.role === 'model' && model.startsWith('gemini-3')) {
      const first = content.parts.find((p: any) => p?.functionCall !== undefined);
      if (first !== undefined && typeof first.thoughtSignature !== 'string') return SIGNATURE_MISSING;
    }
  }
  return null;
}

/** One response holding every chunk's parts (adjacent texts of one kind joined), the last finish and usage. */
export function mergeChunks(chunks: ReadonlyArray<Record<string, any>>): Record<string, unknown> {
  if (chunks.length === 1) return chunks[0]!;
  const parts: Array<Record<string, unknown>> = [];
  let finishReason: unknown;
  let last: Record<string, any> = {};
  for (const chunk of chunks) {
    last = chunk;
    const candidate = chunk.candidates?.[0];
    if (candidate?.finishReason !== undefined) finishReason = candidate.finishReason;
    for (const part of candidate?.content?.parts ?? []) {
      const prev = parts[parts.length - 1];
      const isText = typeof part.text === 'string' && part.functionCall === undefined;
      if (
        prev !== undefined &&
        isText &&
        typeof prev.text === 'string' &&
        prev.thought === part.thought &&
        prev.thoughtSignature === undefined
      ) {
        prev.text += part.text;
        if (part.thoughtSignature !== undefined) prev.thoughtSignature = part.thoughtSignature;
      } else {
        parts.push({ ...part });
      }
    }
  }
  const merged: Record<string, unknown> = { ...last };
  if (last.candidates !== undefined) {
    const candidate: Record<string, unknown> = { content: { parts, role: 'model' }, index: 0 };
    if (finishReason !== undefined) candidate.finishReason = finishReason;
    merged.candidates = [candidate];
  }
  return merged;
}

export function frame(value: unknown): string {
  return `data: ${JSON.stringify(value)}\r\n\r\n`;
}

function estimate(text: string): number {
  return Math.ceil(text.length / 4);
}
