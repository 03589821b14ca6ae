import { PASS, drop, rename } from '../../parameter-rules.ts';
import { CHAT_RULES, SELF_HOSTED_SAMPLING } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/**
 * OpenRouter as an upstream. Reasoning goes as its `reasoning` object (effort or a token
 * budget, and `exclude`), and comes back in `delta.reasoning`. `modalities` and `audio`
 * pass: generated images come back in `message.images` / `delta.images`, audio (streams
 * only, at OpenRouter) in `delta.audio`, as OpenAI's. The request's own
 * `provider` preferences are not forwarded: they name this gateway's providers and were
 * spent choosing OpenRouter; OpenRouter routes on its own defaults.
 */
export const OPENROUTER_PROFILE = defineProfile({
  name: 'openrouter',
  tasks: ['embedding'],
  vendor: 'OpenRouter',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  input: ['image', 'file', 'audio'],
  rules: {
    ...CHAT_RULES,
    ...SELF_HOSTED_SAMPLING,
    top_a: PASS,
    reasoning: rename('reasoning'),
    prompt_cache_key: drop('not an OpenRouter parameter'),
  },
  passThrough: ['plugins', 'transforms', 'verbosity', 'web_search_options', 'prediction'],
});
