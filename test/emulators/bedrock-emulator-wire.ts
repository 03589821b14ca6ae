// The Bedrock emulator's wire: answers as Converse JSON and as ConverseStream event-stream
// frames (encoded with @smithy/eventstream-codec, as AWS's own servers frame them), error
// bodies with their `x-amzn-errortype`, and the SigV4 check (the signature recomputed with
// @smithy/signature-v4 from the known test credentials).

import type { IncomingHttpHeaders } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Hash } from '@smithy/hash-node';
import { splitText } from './split-text.ts';

/** The credentials the emulator knows (what tests give the gateway through the AWS chain). */
export const TEST_AWS_CREDENTIALS = {
  accessKeyId: 'AKIDSWITCHYARDTEST',
  secretAccessKey: 'switchyard/test/secret/key/do-not-use',
} as const;

export interface BedrockEmulatorToolCall {
  id?: string;
  name: string;
  arguments: string;
}

export interface BedrockEmulatorUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

export interface BedrockAnswerStep {
  fault?: undefined;
  reasoning?: string;
  /** The reasoning's signature (default derived from its text). */
  signature?: string;
  text?: string;
  toolCalls?: BedrockEmulatorToolCall[];
  /** Default `tool_use` with tool calls, else `end_turn`. */
  stopReason?: string;
  usage?: BedrockEmulatorUsage;
  /** How many pieces text and reasoning stream in (default: one per word). */
  chunks?: number;
}

export interface Frame {
  messageType: 'event' | 'exception';
  type: string;
  payload: Record<string, unknown>;
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** One binary frame, padded as AWS pads its payloads (`p`), which readers must ignore. */
export function encodeFrame(frame: Frame): Uint8Array {
  const typeHeader = frame.messageType === 'event' ? ':event-type' : ':exception-type';
  const payload =
    frame.messageType === 'event'
      ? { ...frame.payload, p: 'abcdefghijklmnopqrstuvwxyzABCDEF'.slice(0, 1 + (frame.type.length % 31)) }
      : frame.payload;
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: frame.messageType },
      [typeHeader]: { type: 'string', value: frame.type },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: Buffer.from(JSON.stringify(payload), 'utf8'),
  });
}

/** An event frame whose payload is `text` as given (for a malformed one). */
export function encodeRawEventFrame(type: string, text: string): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: 'event' },
      ':event-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: Buffer.from(text, 'utf8'),
  });
}

interface Block {
  kind: 'reasoning' | 'text' | 'tool';
  text: string;
  signature?: string;
  id?: string;
  name?: string;
}

function blocksOf(step: BedrockAnswerStep, counter: number): Block[] {
  const blocks: Block[] = [];
  if (step.reasoning !== undefined) {
    blocks.push({
      kind: 'reasoning',
      text: step.reasoning,
      signature: step.signature ?? `EqQB${Buffer.from(`sig:${step.reasoning}`).toString('base64')}`,
    });
  }
  if (step.text !== undefined && step.text.length > 0) blocks.push({ kind: 'text', text: step.text });
  (step.toolCalls ?? []).forEach((c, i) =>
    blocks.push({ kind: 'tool', text: c.arguments, id: c.id ?? `tooluse_emu${counter}_${i}`, name: c.name }),
  );
  return blocks;
}

function stopReasonOf(step: BedrockAnswerStep): string {
  return step.stopReason ?? ((step.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

function usageOf(step: BedrockAnswerStep, promptTokens: number): Record<string, number> {
  const u = step.usage;
  const chars =
    (step.text?.length ?? 0) +
    (step.reasoning?.length ?? 0) +
    (step.toolCalls ?? []).reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const usage: Record<string, number> = {
    inputTokens: u?.inputTokens ?? promptTokens,
    outputTokens: u?.outputTokens ?? Math.max(1, Math.ceil(chars / 4)),
  };
  if (u?.cacheReadInputTokens !== undefined) usage.cacheReadInputTokens = u.cacheReadInputTokens;
  if (u?.cacheWriteInputTokens !== undefined) usage.cacheWriteInputTokens = u.cacheWriteInputTokens;
  usage.totalTokens = usage.inputTokens! + usage.outputTokens! + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);
  return usage;
}

/** The Converse JSON answer. */
export function converseAnswer(step: BedrockAnswerStep, promptTokens: number, counter: number): Record<string, unknown> {
  const content = blocksOf(step, counter).map((b) => {
    switch (b.kind) {
      case 'reasoning':
        return { reasoningContent: { reasoningText: { text: b.text, signature: b.signature } } };
      case 'text':
        return { text: b.text };
      case 'tool':
        return { toolUse: { toolUseId: b.id, name: b.name, input: b.text.length === 0 ? {} : JSON.parse(b.text) } };
    }
  });
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: stopReasonOf(step),
    usage: usageOf(step, promptTokens),
    metrics: { latencyMs: 42 },
  };
}

/** The ConverseStream frames, in the documented order: `metadata` after `messageStop`. */
export function converseStreamFrames(step: BedrockAnswerStep, promptTokens: number, counter: number): Frame[] {
  const frames: Frame[] = [{ messageType: 'event', type: 'messageStart', payload: { role: 'assistant' } }];
  const event = (type: string, payload: Record<string, unknown>): void => {
    frames.push({ messageType: 'event', type, payload });
  };
  blocksOf(step, counter).forEach((b, contentBlockIndex) => {
    switch (b.kind) {
      case 'reasoning':
        for (const piece of splitText(b.text, step.chunks))
          event('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { text: piece } } });
        event('contentBlockDelta', { contentBlockIndex, delta: { reasoningContent: { signature: b.signature } } });
        break;
      case 'text':
        for (const piece of splitText(b.text, step.chunks)) event('contentBlockDelta', { contentBlockIndex, delta: { text: piece } });
        break;
      case 'tool':
        event('contentBlockStart', { contentBlockIndex, start: { toolUse: { toolUseId: b.id, name: b.name } } });
        for (const piece of splitText(b.text, Math.min(3, b.text.length)))
          event('contentBlockDelta', { contentBlockIndex, delta: { toolUse: { input: piece } } });
        break;
    }
    event('contentBlockStop', { contentBlockIndex });
  });
  event('messageStop', { stopReason: stopReasonOf(step) });
  event('metadata', { usage: usageOf(step, promptTokens), metrics: { latencyMs: 42 } });
  return frames;
}

/** Bedrock's error: `{message}` with the type in `x-amzn-errortype`. */
export const ERROR_TYPES: Readonly<Record<number, { type: string; message: string }>> = {
  400: { type: 'ValidationException', message: 'Malformed input request, please reformat your input and try again.' },
  403: { type: 'AccessDeniedException', message: "You don't have access to the model with the specified model ID." },
  404: { type: 'ResourceNotFoundException', message: 'Could not resolve the foundation model from the provided model identifier.' },
  424: { type: 'ModelErrorException', message: 'The model returned an error.' },
  429: { type: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' },
  500: { type: 'InternalServerException', message: 'The server encountered an internal error.' },
  503: { type: 'ServiceUnavailableException', message: 'Bedrock is unable to process your request.' },
};

/**
 * Why a request's SigV4 signature is refused (Bedrock's 403 type and message), or null when
 * it is valid: the signature is recomputed over the headers it says it signed.
 */
export async function checkSignature(
  method: string,
  rawPath: string,
  headers: IncomingHttpHeaders,
  body: string,
): Promise<{ type: string; message: string } | null> {
  const auth = header(headers, 'authorization');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (m === null) return { type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const [, accessKeyId, , region, service, signedHeaders] = m;
  if (accessKeyId !== TEST_AWS_CREDENTIALS.accessKeyId) {
    return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  const amzDate = header(headers, 'x-amz-date');
  const d = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (d === null) return { type: 'IncompleteSignatureException', message: 'X-Amz-Date is missing or malformed.' };
  const signingDate = new Date(Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!));
  const names = signedHeaders!.split(';');
  const signed: Record<string, string> = {};
  for (const name of names) signed[name] = header(headers, name);
  const q = rawPath.indexOf('?');
  const request = new HttpRequest({
    method,
    protocol: 'http:',
    hostname: header(headers, 'host'),
    path: q === -1 ? rawPath : rawPath.slice(0, q),
    query: q === -1 ? {} : Object.fromEntries(new URLSearchParams(rawPath.slice(q + 1))),
    headers: signed,
    body,
  });
  const signer = new SignatureV4({
    service: service!,
    region: region!,
    credentials: TEST_AWS_CREDENTIALS,
    sha256: Hash.bind(null, 'sha256'),
  });
  const expected = await signer.sign(request, { signingDate, signableHeaders: new Set(names) });
  if (expected.headers.authorization !== auth) {
    return {
      type: 'InvalidSignatureException',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  }
  return null;
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
}
