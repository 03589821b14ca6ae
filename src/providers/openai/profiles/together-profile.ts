import { drop } from '../../parameter-rules.ts';
import { CHAT_RULES, SELF_HOSTED_SAMPLING } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/** Together AI: the chat API plus the open-model sampling extensions. */
export const TOGETHER_PROFILE = defineProfile({
  name: 'together',
  tasks: ['embedding', 'image'],
  vendor: 'Together AI',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // Vision models take images; no file or audio parts in chat.
  input: ['image'],
  rules: {
    ...CHAT_RULES,
    ...SELF_HOSTED_SAMPLING,
    parallel_tool_calls: drop('not a Together parameter'),
    user: drop('not a Together parameter'),
    prompt_cache_key: drop('not a Together parameter'),
    modalities: drop('Together chat generates text only'),
    audio: drop('Together chat generates text only'),
  },
});
