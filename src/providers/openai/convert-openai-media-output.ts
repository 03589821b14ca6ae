import type { Base64PieceJoiner } from '../../canonical/join-base64-pieces.ts';
import type { AudioDeltaPart } from '../../canonical/stream-part.ts';
import type { PartSink } from '../types.ts';
import type { OpenAIAudioWire, OpenAIImageWire } from './openai-chat-wire-types.ts';

// Generated audio and images on a chat message or delta, as stream parts. The same code
// reads a whole message and a stream's pieces, so the two fold alike:
// - `audio` (OpenAI's `audio` modality): `{id, data, transcript, expires_at}` whole on a
//   message; in a stream, pieces of the data and of the transcript, the id on the first and
//   `expires_at` on the last. Each piece becomes an `audio-delta`.
// - `images` (OpenRouter's image output): `[{type: 'image_url', image_url: {url}}]`, each
//   image whole, a `data:` URI or a URL. Each becomes an `image-output`.

/**
 * `pieces` (in a stream) re-cuts the data when a server encodes each piece on its own, so
 * the pieces still join as text (join-base64-pieces.ts); the caller flushes it at the end.
 */
export function emitOpenAIAudio(audio: OpenAIAudioWire | null | undefined, emit: PartSink, pieces?: Base64PieceJoiner): void {
  if (typeof audio !== 'object' || audio === null) return;
  const part: AudioDeltaPart = { type: 'audio-delta' };
  let any = false;
  if (typeof audio.id === 'string' && audio.id.length > 0) {
    part.id = audio.id;
    any = true;
  }
  if (typeof audio.data === 'string' && audio.data.length > 0) {
    const data = pieces === undefined ? audio.data : pieces.push(audio.data);
    if (data.length > 0) {
      part.data = data;
      any = true;
    }
  }
  if (typeof audio.transcript === 'string' && audio.transcript.length > 0) {
    part.transcript = audio.transcript;
    any = true;
  }
  if (typeof audio.format === 'string' && audio.format.length > 0) {
    part.format = audio.format;
    any = true;
  }
  if (typeof audio.expires_at === 'number' && Number.isFinite(audio.expires_at)) {
    part.expiresAt = audio.expires_at;
    any = true;
  }
  if (any) emit(part);
}

export function emitOpenAIImages(images: OpenAIImageWire[] | null | undefined, emit: PartSink): void {
  if (!Array.isArray(images)) return;
  for (let i = 0; i < images.length; i++) {
    const image = images[i];
    if (typeof image !== 'object' || image === null) continue;
    const url = image.image_url?.url;
    if (typeof url === 'string' && url.length > 0) emit({ type: 'image-output', url });
  }
}
