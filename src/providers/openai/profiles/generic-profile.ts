import { CHAT_RULES, SELF_HOSTED_SAMPLING } from './chat-rules.ts';
import { defineProfile } from './openai-profile.ts';

/** Any OpenAI-compatible server the gateway knows nothing else about (llama.cpp, TGI, proxies). */
export const GENERIC_PROFILE = defineProfile({
  name: 'generic',
  tasks: ['embedding', 'image', 'speech', 'transcription'],
  vendor: 'OpenAI-compatible server',
  auth: 'bearer',
  route: 'chat',
  streamOptions: true,
  // OpenAI's wire format: whether the server takes each kind is the server's to say.
  input: ['image', 'file', 'audio'],
  rules: { ...CHAT_RULES, ...SELF_HOSTED_SAMPLING },
});
