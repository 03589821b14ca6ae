import type { RequestParameter } from '../../canonical/request.ts';
import { drop, rename, supportedParameters, type ParameterTable } from '../parameter-rules.ts';

// How each request parameter travels to the Gemini API (the same data model as the
// OpenAI-compatible profiles, so the catalog and docs/providers.md read it alike). The
// encoder (convert-to-gemini-request.ts) follows this table; a test holds them together.

export const GEMINI_RULES: ParameterTable = {
  temperature: rename('generationConfig.temperature'),
  top_p: rename('generationConfig.topP'),
  top_k: rename('generationConfig.topK'),
  min_p: drop('no Gemini equivalent'),
  top_a: drop('no Gemini equivalent'),
  frequency_penalty: rename('generationConfig.frequencyPenalty'),
  presence_penalty: rename('generationConfig.presencePenalty'),
  repetition_penalty: drop('no Gemini equivalent'),
  seed: rename('generationConfig.seed'),
  logit_bias: drop('no Gemini equivalent'),
  max_tokens: rename('generationConfig.maxOutputTokens'),
  stop: rename('generationConfig.stopSequences'),
  tools: rename('tools[].functionDeclarations'),
  tool_choice: rename('toolConfig.functionCallingConfig'),
  parallel_tool_calls: drop('Gemini has no switch for parallel function calls'),
  response_format: rename('generationConfig.responseMimeType'),
  structured_outputs: rename('generationConfig.responseSchema'),
  reasoning: rename('generationConfig.thinkingConfig'),
  include_reasoning: rename('generationConfig.thinkingConfig.includeThoughts'),
  modalities: rename('generationConfig.responseModalities'),
  audio: drop("OpenAI's voices and formats have no Gemini equivalent (Gemini speech models have voices of their own and answer in PCM)"),
  prompt_cache_key: drop('Gemini caches implicitly; explicit caches are named resources, not keys'),
  user: drop('no Gemini field'),
};

export const GEMINI_SUPPORTED_PARAMETERS: ReadonlySet<RequestParameter> = supportedParameters(GEMINI_RULES);
