import { cost, perMillion } from './format.ts';

// The kinds of model a request can go to (chat, embedding, image, speech, transcription), as
// the dashboard shows them. A generation record names the surface it came through
// (`api_type`: chat, messages, responses, embeddings, images, speech, transcriptions).

const KIND_OF_SURFACE: Record<string, string> = {
  chat: 'chat',
  messages: 'chat',
  responses: 'chat',
  embeddings: 'embedding',
  images: 'image',
  speech: 'speech',
  transcriptions: 'transcription',
};

/** The kind a record's surface serves; the surface itself when it is not one this dashboard knows. */
export function kindOfSurface(apiType: string | null | undefined): string {
  if (apiType === null || apiType === undefined || apiType === '') return '—';
  return KIND_OF_SURFACE[apiType] ?? apiType;
}

export interface TaskPricing {
  image_output?: string;
  character?: string;
  audio_second?: string;
}

/** The prices a model bills besides tokens, exact: per image, per million characters, per second of audio. */
export function taskPrices(p: TaskPricing): string {
  const out: string[] = [];
  if (p.image_output !== undefined) out.push(`${cost(p.image_output)} / image`);
  if (p.character !== undefined) out.push(`${perMillion(p.character)} / 1M chars`);
  if (p.audio_second !== undefined) out.push(`${cost(p.audio_second)} / s of audio`);
  return out.length === 0 ? '—' : out.join(', ');
}
