import { drop, rename } from '../../parameter-rules.ts';
import { CHAT_RULES } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

// Mistral refuses fields it does not know (422), so everything outside its documented
// request is dropped, and it reports streaming usage on the last chunk unasked, so no
// `stream_options` either. Magistral's thinking arrives as `thinking` content parts.
const NOT_AT_MISTRAL = 'not a Mistral chat parameter (Mistral refuses unknown fields)';

export const MISTRAL_PROFILE = defineProfile({
  name: 'mistral',
  tasks: ['embedding'],
  vendor: 'Mistral',
  auth: 'bearer',
  route: 'chat',
  streamOptions: false,
  // Documents go as `document_url` and audio as a bare base64 string at Mistral: not mapped.
  input: ['image'],
  rules: {
    ...CHAT_RULES,
    seed: rename('random_seed'),
    logit_bias: drop(NOT_AT_MISTRAL),
    user: drop(NOT_AT_MISTRAL),
    prompt_cache_key: drop(NOT_AT_MISTRAL),
    modalities: drop(NOT_AT_MISTRAL),
    audio: drop(NOT_AT_MISTRAL),
    reasoning: drop('Mistral models take no reasoning effort; Magistral reasons on its own'),
  },
  passThrough: ['safe_prompt'],
});
