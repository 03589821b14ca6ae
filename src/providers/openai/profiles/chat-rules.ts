import { PASS, drop, gateway, rename, type ParameterTable } from '../../parameter-rules.ts';

// The OpenAI chat-completions API's own parameters: the table every vendor profile starts
// from and overrides.

const NOT_IN_CHAT_API = 'not a chat-completions parameter';

export const CHAT_RULES: ParameterTable = {
  temperature: PASS,
  top_p: PASS,
  top_k: drop(NOT_IN_CHAT_API),
  min_p: drop(NOT_IN_CHAT_API),
  top_a: drop(NOT_IN_CHAT_API),
  frequency_penalty: PASS,
  presence_penalty: PASS,
  repetition_penalty: drop(NOT_IN_CHAT_API),
  seed: PASS,
  logit_bias: PASS,
  max_tokens: PASS,
  stop: PASS,
  tools: PASS,
  tool_choice: PASS,
  parallel_tool_calls: PASS,
  response_format: PASS,
  structured_outputs: PASS,
  // Only the effort has a chat field; a token budget alone is not sent.
  reasoning: rename('reasoning_effort'),
  include_reasoning: gateway('the gateway leaves the reasoning out of the answer itself'),
  modalities: PASS,
  audio: PASS,
  prompt_cache_key: PASS,
  user: PASS,
};

/** Self-hosted inference servers (vLLM, llama.cpp, TGI) take these sampling extensions. */
export const SELF_HOSTED_SAMPLING = {
  top_k: PASS,
  min_p: PASS,
  repetition_penalty: PASS,
} as const;
