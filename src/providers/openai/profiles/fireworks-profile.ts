import { drop } from '../../parameter-rules.ts';
import { CHAT_RULES, SELF_HOSTED_SAMPLING } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/** Fireworks AI: the chat API plus the open-model sampling extensions. */
export const FIREWORKS_PROFILE = defineProfile({
  name: 'fireworks',
  tasks: ['embedding', 'image'],
  vendor: 'Fireworks AI',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // Vision models take images; no file or audio parts in chat.
  input: ['image'],
  rules: {
    ...CHAT_RULES,
    ...SELF_HOSTED_SAMPLING,
    prompt_cache_key: drop('Fireworks caches prompt prefixes automatically'),
    modalities: drop('Fireworks chat generates text only'),
    audio: drop('Fireworks chat generates text only'),
  },
});
