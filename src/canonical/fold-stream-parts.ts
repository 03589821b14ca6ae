import type { StreamPart } from './stream-part.ts';
import { assertNever } from './stream-part.ts';
import type { CanonicalResponse } from './response.ts';
import type { AssistantAudioPart, ReasoningPart, TextPart, ToolCallPart } from './request.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { appendBase64 } from './join-base64-pieces.ts';

/**
 * Folds stream parts into a whole answer. A non-streamed answer is built by this same
 * fold, so streamed and non-streamed results cannot disagree. Consecutive deltas of one
 * kind merge into one block; a change of kind starts a new block. Audio pieces are the
 * exception: all the pieces of one audio (one id, or none given after the first) make one
 * `audio-output` part, where the first piece came, whatever came between.
 */
export class StreamFolder {
  readonly response: CanonicalResponse = { content: [], finish: null, usage: null };
  error: GatewayError | null = null;
  /** Tool calls by index, made at the first one (most answers have none: no Map per answer). */
  private toolCalls: Map<number, ToolCallPart> | null = null;
  private last: TextPart | ReasoningPart | null = null;
  private audio: AssistantAudioPart | null = null;

  push(part: StreamPart): void {
    const r = this.response;
    switch (part.type) {
      case 'stream-start':
        if (part.id !== undefined) r.id = part.id;
        if (part.model !== undefined) r.model = part.model;
        return;
      case 'text-delta': {
        if (this.last?.type === 'text') this.last.text += part.text;
        else {
          const block: TextPart = { type: 'text', text: part.text };
          r.content.push(block);
          this.last = block;
        }
        return;
      }
      case 'reasoning-delta': {
        if (this.last?.type === 'reasoning' && this.last.signature === undefined) this.last.text += part.text;
        else {
          const block: ReasoningPart = { type: 'reasoning', text: part.text };
          r.content.push(block);
          this.last = block;
        }
        return;
      }
      case 'reasoning-signature': {
        if (this.last?.type === 'reasoning' && this.last.signature === undefined) this.last.signature = part.signature;
        else r.content.push({ type: 'reasoning', text: '', signature: part.signature });
        this.last = null;
        return;
      }
      case 'reasoning-redacted':
        r.content.push({ type: 'redacted-reasoning', data: part.data });
        this.last = null;
        return;
      case 'tool-call-start': {
        const call: ToolCallPart = { type: 'tool-call', id: part.id, name: part.name, arguments: '' };
        if (part.signature !== undefined) call.signature = part.signature;
        (this.toolCalls ??= new Map()).set(part.index, call);
        r.content.push(call);
        this.last = null;
        return;
      }
      case 'tool-call-delta': {
        const call = this.toolCalls?.get(part.index);
        if (call) call.arguments += part.argumentsDelta;
        return;
      }
      case 'tool-call-end':
        return;
      case 'audio-delta': {
        let audio = this.audio;
        if (audio === null || (part.id !== undefined && audio.id !== undefined && part.id !== audio.id)) {
          audio = { type: 'audio-output', data: '', transcript: '' };
          r.content.push(audio);
          this.audio = audio;
          this.last = null;
        }
        if (part.id !== undefined && audio.id === undefined) audio.id = part.id;
        if (part.data !== undefined && part.data.length > 0) audio.data = appendBase64(audio.data, part.data);
        if (part.transcript !== undefined) audio.transcript += part.transcript;
        if (part.format !== undefined && audio.format === undefined) audio.format = part.format;
        if (part.expiresAt !== undefined) audio.expiresAt = part.expiresAt;
        return;
      }
      case 'image-output':
        r.content.push({ type: 'image-output', url: part.url });
        this.last = null;
        return;
      case 'task-result':
        r.task = part.result;
        return;
      case 'finish':
        r.finish = part.reason;
        return;
      case 'usage':
        r.usage = part.usage;
        return;
      case 'error':
        this.error = part.error;
        return;
      case 'server-tool-list':
        (r.serverTools ??= []).push({ kind: 'list', before: r.content.length, list: part.list });
        this.last = null;
        return;
      case 'server-tool-call': {
        // A call's start and its end share an id: the end replaces the start where it stands.
        const entries = (r.serverTools ??= []);
        const at = entries.findIndex((e) => e.kind === 'call' && e.call.id === part.call.id);
        if (at === -1) entries.push({ kind: 'call', before: r.content.length, call: part.call });
        else entries[at] = { kind: 'call', before: entries[at]!.before, call: part.call };
        this.last = null;
        return;
      }
      default:
        assertNever(part);
    }
  }
}

export function foldStreamParts(parts: Iterable<StreamPart>): { response: CanonicalResponse; error: GatewayError | null } {
  const folder = new StreamFolder();
  for (const p of parts) folder.push(p);
  return { response: folder.response, error: folder.error };
}
