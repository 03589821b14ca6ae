import type { CanonicalRequest } from '../../canonical/request.ts';
import { parseToolInput } from '../anthropic-messages/encode-messages-response.ts';

// The parts of a Gemini answer, shared by the whole answer and the stream's chunks.

export interface GeminiAnswerPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id: string; name: string; args: unknown };
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
}

/** Thoughts are returned only when the client asked (`thinkingConfig.includeThoughts`), as Gemini does. */
export function showsThoughts(req: CanonicalRequest): boolean {
  const r = req.reasoning;
  return r !== undefined && r.enabled === true && r.exclude !== true;
}

/**
 * A thought part: its text when thoughts are shown; when they are not, only a signature
 * is kept (an empty thought), so that the turn can be replayed to the vendor that signed it.
 */
export function thoughtPart(text: string, signature: string | undefined, show: boolean): GeminiAnswerPart | null {
  if (!show && signature === undefined) return null;
  const part: GeminiAnswerPart = { text: show ? text : '', thought: true };
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

/** Arguments arrive as JSON text; Gemini's `args` is the object (`{}` for text that is not one). */
export function functionCallPart(id: string, name: string, args: string, signature: string | undefined): GeminiAnswerPart {
  const part: GeminiAnswerPart = { functionCall: { id, name, args: parseToolInput(args) } };
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

/** A generated image (a data: URI or a URL) as inline data or a file reference. */
export function imagePart(url: string): GeminiAnswerPart {
  if (url.startsWith('data:')) {
    const semi = url.indexOf(';');
    const comma = url.indexOf(',');
    const mimeType = url.slice(5, semi > 5 && semi < comma ? semi : comma);
    return { inlineData: { mimeType: mimeType.length > 0 ? mimeType : 'image/png', data: url.slice(comma + 1) } };
  }
  return { fileData: { fileUri: url } };
}

export function audioPart(data: string, format: string | undefined): GeminiAnswerPart {
  return { inlineData: { mimeType: `audio/${format ?? 'wav'}`, data } };
}
