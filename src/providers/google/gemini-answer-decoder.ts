import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { Endpoint } from '../../catalog/types.ts';
import { Base64PieceJoiner } from '../../canonical/join-base64-pieces.ts';
import { unusableAnswerError } from '../http/upstream-error.ts';
import type { PartSink } from '../types.ts';
import { convertGeminiUsage } from './convert-gemini-usage.ts';
import { geminiErrorMessage } from './decode-gemini-error.ts';
import { geminiToolCallId, toolCallIdBase } from './gemini-tool-call-id.ts';
import type { GeminiCandidateWire, GeminiPartWire, GeminiResponseWire, GeminiUsageWire } from './gemini-wire-types.ts';
import { blockedFinishReason, mapGeminiFinishReason } from './map-gemini-finish-reason.ts';

/**
 * Turns Gemini responses into stream parts. A non-streamed answer is one response; a stream
 * is a run of them, each with the parts added since the last (function calls arrive whole),
 * running usage totals, and the finish reason on the last. Both go through this one class,
 * so a streamed and a non-streamed answer fold alike.
 *
 * Thoughts (`thought: true` text) are reasoning. Generated images and audio (`inlineData`)
 * are `image-output` and `audio-delta` parts. A function call's thought signature goes on
 * its `tool-call-start` and into its id (gemini-tool-call-id.ts). Signatures on text parts
 * are not kept: Gemini does not require them back, and no dialect has a place for them.
 * Usage and the finish are held until the end: usage repeats on every chunk.
 */
export class GeminiAnswerDecoder {
  private readonly endpoint: Endpoint;
  private readonly emit: PartSink;
  private started = false;
  /** An error was emitted: nothing more is owed. */
  private closed = false;
  private toolCount = 0;
  private idBase = '';
  private finishRaw: string | null = null;
  private blockReason: string | null = null;
  private usage: GeminiUsageWire | null = null;
  /** Gemini encodes each audio piece on its own; clients join them as text. */
  private readonly audio = new Base64PieceJoiner();
  private audioFormat = '';

  constructor(endpoint: Endpoint, emit: PartSink) {
    this.endpoint = endpoint;
    this.emit = emit;
  }

  get failed(): boolean {
    return this.closed;
  }

  /** One response (or stream chunk), already parsed. */
  response(value: unknown): void {
    if (this.closed) return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail('upstream sent an invalid response', value);
      return;
    }
    const r = value as GeminiResponseWire;
    if (r.error !== undefined && r.error !== null) {
      this.fail(geminiErrorMessage(r) ?? 'upstream reported an error', r);
      return;
    }
    if (!this.started) {
      this.started = true;
      this.idBase = toolCallIdBase(r.responseId);
      this.emit({
        type: 'stream-start',
        id: typeof r.responseId === 'string' ? r.responseId : undefined,
        model: typeof r.modelVersion === 'string' ? r.modelVersion : undefined,
      });
    }
    if (typeof r.usageMetadata === 'object' && r.usageMetadata !== null) this.usage = r.usageMetadata;
    const block = r.promptFeedback?.blockReason;
    if (typeof block === 'string' && block.length > 0) this.blockReason = block;
    const candidates = r.candidates;
    // The gateway asks for one candidate; others are not ours.
    const candidate = Array.isArray(candidates) ? (candidates[0] as GeminiCandidateWire | undefined) : undefined;
    if (typeof candidate !== 'object' || candidate === null) return;
    const parts = candidate.content?.parts;
    if (Array.isArray(parts)) {
      for (let i = 0; i < parts.length; i++) {
        const part: unknown = parts[i];
        if (typeof part === 'object' && part !== null) this.part(part as GeminiPartWire);
      }
    }
    if (typeof candidate.finishReason === 'string' && candidate.finishReason.length > 0) this.finishRaw = candidate.finishReason;
  }

  /**
   * The answer is over: emit the finish and the usage. `complete` says whether the upstream
   * ended cleanly; a stream that closed with no finish reason (nor a block) was cut short.
   */
  end(complete: boolean): void {
    if (this.closed) return;
    this.closed = true;
    const audioRest = this.audio.flush();
    if (audioRest.length > 0) this.emit({ type: 'audio-delta', data: audioRest, format: this.audioFormat });
    let reason: FinishReason | null = null;
    if (this.finishRaw !== null) reason = mapGeminiFinishReason(this.finishRaw, this.toolCount > 0);
    else if (this.blockReason !== null) reason = blockedFinishReason(this.blockReason);
    else if (complete) reason = { unified: this.toolCount > 0 ? 'tool_calls' : 'stop', raw: null };
    if (reason !== null) this.emit({ type: 'finish', reason });
    if (this.usage !== null) this.emit({ type: 'usage', usage: convertGeminiUsage(this.usage) });
    if (reason === null)
      this.emit({ type: 'error', error: unusableAnswerError(this.endpoint, 'upstream stream ended before completion', null) });
  }

  private part(part: GeminiPartWire): void {
    const call = part.functionCall;
    if (typeof call === 'object' && call !== null) {
      this.functionCall(call, part.thoughtSignature);
      return;
    }
    const inline = part.inlineData;
    if (typeof inline === 'object' && inline !== null) {
      this.inlineData(inline, part.thought === true);
      return;
    }
    const text = part.text;
    if (typeof text !== 'string' || text.length === 0) return;
    this.emit(part.thought === true ? { type: 'reasoning-delta', text } : { type: 'text-delta', text });
  }

  /**
   * Media the model made: an image becomes an `image-output` (a `data:` URI), audio an
   * `audio-delta` (a stream's pieces fold into one audio; re-cut so that they join as text,
   * the bytes of a piece's last partial group waiting for the next). Images drawn while
   * thinking (`thought: true`, Gemini 3 image models' drafts) are not the answer and are
   * left out.
   */
  private inlineData(inline: NonNullable<GeminiPartWire['inlineData']>, thought: boolean): void {
    const mimeType = typeof inline.mimeType === 'string' ? inline.mimeType.toLowerCase() : '';
    const data = inline.data;
    if (thought || typeof data !== 'string' || data.length === 0) return;
    if (mimeType.startsWith('image/')) {
      this.emit({ type: 'image-output', url: `data:${mimeType};base64,${data}` });
    } else if (mimeType.startsWith('audio/')) {
      this.audioFormat = audioFormatOf(mimeType);
      const piece = this.audio.push(data);
      if (piece.length > 0) this.emit({ type: 'audio-delta', data: piece, format: this.audioFormat });
    }
  }

  private functionCall(call: NonNullable<GeminiPartWire['functionCall']>, rawSignature: unknown): void {
    const index = this.toolCount++;
    const signature = typeof rawSignature === 'string' && rawSignature.length > 0 ? rawSignature : undefined;
    const name = typeof call.name === 'string' ? call.name : '';
    const id = geminiToolCallId(this.idBase, index, signature);
    this.emit(
      signature === undefined ? { type: 'tool-call-start', index, id, name } : { type: 'tool-call-start', index, id, name, signature },
    );
    const args = typeof call.args === 'object' && call.args !== null ? call.args : {};
    this.emit({ type: 'tool-call-delta', index, argumentsDelta: JSON.stringify(args) });
    this.emit({ type: 'tool-call-end', index });
  }

  private fail(message: string, raw: unknown): void {
    this.closed = true;
    this.emit({ type: 'error', error: unusableAnswerError(this.endpoint, message, raw) });
  }
}

/**
 * The OpenAI-style format name of a Gemini audio media type. Speech models answer with raw
 * 16-bit PCM (`audio/L16;codec=pcm;rate=24000`, little-endian in practice), which is what
 * OpenAI calls `pcm16`.
 */
export function audioFormatOf(mimeType: string): string {
  const base = mimeType.split(';', 1)[0]!.trim();
  switch (base) {
    case 'audio/l16':
    case 'audio/pcm':
      return 'pcm16';
    case 'audio/mpeg':
    case 'audio/mp3':
      return 'mp3';
    case 'audio/wav':
    case 'audio/x-wav':
    case 'audio/wave':
      return 'wav';
    default:
      return base.slice('audio/'.length);
  }
}
