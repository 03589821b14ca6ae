import type { TaskCodec } from '../types.ts';
import { openAIProfileFor } from './openai-profiles.ts';
import { decodeOpenAIEmbeddings, encodeOpenAIEmbeddings } from './openai-embeddings.ts';
import { decodeOpenAIImages, encodeOpenAIImages } from './openai-images.ts';
import { decodeOpenAISpeech, encodeOpenAISpeech, isAudioAnswer } from './openai-speech.ts';
import { decodeOpenAITranscription, encodeOpenAITranscription } from './openai-transcriptions.ts';
import { assertNever } from '../../canonical/stream-part.ts';
import { embeddingInputLimit, OPENAI_MAX_INPUTS } from '../tasks/embedding-limits.ts';

/** OpenAI's task endpoints (embeddings, images, audio), for the vendors whose profile serves them. */
export const openAITaskCodec: TaskCodec = {
  kindsFor(provider) {
    return openAIProfileFor(provider).tasks;
  },
  encode(req, task, endpoint) {
    switch (task.kind) {
      case 'embedding':
        return encodeOpenAIEmbeddings(req, task, endpoint);
      case 'image':
        return encodeOpenAIImages(req, task, endpoint);
      case 'speech':
        return encodeOpenAISpeech(req, task, endpoint);
      case 'transcription':
        return encodeOpenAITranscription(req, task, endpoint);
      default:
        return assertNever(task);
    }
  },
  maxInputs(_task, endpoint) {
    return embeddingInputLimit(endpoint, OPENAI_MAX_INPUTS);
  },
  streamsAudio(task, headers) {
    return task.kind === 'speech' && isAudioAnswer(headers);
  },
  decode(task, body, headers, endpoint, emit) {
    switch (task.kind) {
      case 'embedding':
        return decodeOpenAIEmbeddings(task, body, endpoint, emit);
      case 'image':
        return decodeOpenAIImages(task, body, endpoint, emit);
      case 'speech':
        return decodeOpenAISpeech(task, body, headers, endpoint, emit);
      case 'transcription':
        return decodeOpenAITranscription(task, body, endpoint, emit);
      default:
        return assertNever(task);
    }
  },
};
