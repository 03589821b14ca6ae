import { PASS, drop } from '../../parameter-rules.ts';
import { CHAT_RULES } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/**
 * Groq. Reasoning models take `reasoning_effort`, and `include_reasoning` says whether the
 * reasoning comes back (in `message.reasoning`); `reasoning_format` is not used because
 * Groq refuses it for gpt-oss models.
 */
export const GROQ_PROFILE = defineProfile({
  name: 'groq',
  tasks: ['speech', 'transcription'],
  vendor: 'Groq',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // Vision models take images; audio is transcribed on its own endpoint, not in chat.
  input: ['image'],
  rules: {
    ...CHAT_RULES,
    logit_bias: drop('refused by Groq (400)'),
    frequency_penalty: drop('accepted by Groq but not honoured by any of its models'),
    presence_penalty: drop('accepted by Groq but not honoured by any of its models'),
    include_reasoning: PASS,
    prompt_cache_key: drop('not a Groq parameter'),
    modalities: drop('Groq chat generates text only'),
    audio: drop('Groq chat generates text only'),
  },
  includeReasoningField: 'include_reasoning',
});
