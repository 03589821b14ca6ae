import { rename } from '../../parameter-rules.ts';
import { CHAT_RULES } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/** OpenAI itself. */
export const OPENAI_PROFILE = defineProfile({
  name: 'openai',
  tasks: ['embedding', 'image', 'speech', 'transcription'],
  vendor: 'OpenAI',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  input: ['image', 'file', 'audio'],
  rules: {
    ...CHAT_RULES,
    // `max_tokens` is deprecated at OpenAI and refused by its reasoning models.
    max_tokens: rename('max_completion_tokens'),
  },
  // `store` stays out on purpose: storing completions at OpenAI would break the data policy.
  passThrough: ['verbosity', 'service_tier', 'prediction', 'web_search_options', 'safety_identifier', 'prompt_cache_retention'],
});
