// What each OpenAI-compatible vendor's chat API refuses or leaves out, as the vendor does it:
// stated here from the vendors' documentation, independently of the gateway's profiles, so
// a profile that claims more than its vendor takes fails against this emulator (and
// vendor-limits.test.ts checks the two agree).

/** Input kinds besides text, by the chat part type that carries each. */
export type InputKind = 'image' | 'file' | 'audio';

const PART_KIND: Readonly<Record<string, InputKind>> = { image_url: 'image', file: 'file', input_audio: 'audio' };

const ALL: readonly InputKind[] = ['image', 'file', 'audio'];

/** The input kinds each vendor's chat completions take. */
export const VENDOR_INPUT: Readonly<Record<string, readonly InputKind[]>> = {
  openai: ALL,
  openrouter: ALL,
  // The generic subject stands for a server that speaks OpenAI's format in full.
  generic: ALL,
  // GA api-versions: text and images; files and audio need a preview api-version.
  azure: ['image'],
  xai: ['image'],
  mistral: ['image'],
  groq: ['image'],
  deepseek: [],
  together: ['image'],
  fireworks: ['image'],
  ollama: ['image'],
  vllm: ['image', 'audio'],
};

/** Azure's preview api-versions take these too. */
export const AZURE_PREVIEW_INPUT: readonly InputKind[] = ['file', 'audio'];

/** Vendors whose usage reports no cached prompt tokens. */
export const NO_CACHED_TOKENS: ReadonlySet<string> = new Set(['mistral', 'together', 'ollama']);

/** Vendors with JSON mode but no JSON schema in `response_format`. */
export const NO_JSON_SCHEMA: ReadonlySet<string> = new Set(['deepseek']);

export interface Refusal {
  status: number;
  body: unknown;
}

/** The input kinds a request to `vendor` at `path` may carry. */
export function inputKinds(vendor: string, path: string): ReadonlySet<InputKind> {
  const kinds = new Set(VENDOR_INPUT[vendor] ?? ALL);
  if (vendor === 'azure' && /api-version=[\w.-]+-preview$/.test(path)) for (const k of AZURE_PREVIEW_INPUT) kinds.add(k);
  return kinds;
}

/** The vendor's refusal of content or a response format it cannot take, or null. */
export function contentRefusal(vendor: string, path: string, body: any): Refusal | null {
  if (NO_JSON_SCHEMA.has(vendor) && body?.response_format?.type === 'json_schema') {
    return {
      status: 400,
      body: {
        error: {
          message: 'This response_format type is unavailable now',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_request_error',
        },
      },
    };
  }
  const kinds = inputKinds(vendor, path);
  const messages: unknown[] = Array.isArray(body?.messages) ? body.messages : [];
  for (let m = 0; m < messages.length; m++) {
    const content = (messages[m] as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (let p = 0; p < content.length; p++) {
      const type = String((content[p] as { type?: unknown }).type);
      const kind = PART_KIND[type];
      if (kind !== undefined && !kinds.has(kind)) return refusal(vendor, type, m, p);
    }
  }
  return null;
}

/** Each vendor's own shape for a content part it does not know. */
function refusal(vendor: string, type: string, m: number, p: number): Refusal {
  switch (vendor) {
    case 'azure':
      return {
        status: 400,
        body: {
          error: {
            message: `Invalid value: '${type}'. Supported values are: 'text' and 'image_url'.`,
            type: 'invalid_request_error',
            param: `messages[${m}].content[${p}].type`,
            code: 'invalid_value',
          },
        },
      };
    case 'mistral':
      return {
        status: 422,
        body: {
          object: 'error',
          message: {
            detail: [
              {
                type: 'union_tag_invalid',
                loc: ['body', 'messages', m, 'user', 'content', p],
                msg: `Input tag '${type}' found using 'type' does not match any of the expected tags`,
                input: type,
              },
            ],
          },
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      };
    case 'xai':
      return {
        status: 422,
        body: {
          code: 'Client specified an invalid argument',
          error: `Failed to deserialize the JSON body into the target type: messages[${m}]: unknown variant \`${type}\``,
        },
      };
    case 'deepseek':
      return {
        status: 400,
        body: {
          error: {
            message: `Failed to deserialize the JSON body into the target type: messages[${m}]: unknown variant \`${type}\`, expected \`text\``,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request_error',
          },
        },
      };
    case 'vllm':
      return {
        status: 400,
        body: { object: 'error', message: `Unknown part type: ${type}`, type: 'BadRequestError', param: null, code: 400 },
      };
    default:
      return {
        status: 400,
        body: {
          error: {
            message: `messages.${m}.content.${p}.type: '${type}' is not supported`,
            type: 'invalid_request_error',
            param: `messages.${m}.content.${p}.type`,
            code: null,
          },
        },
      };
  }
}

/** Usage as a vendor without cache reporting sends it. */
export function withoutCachedTokens(usage: any): any {
  const { prompt_tokens_details: _details, ...rest } = usage;
  return rest;
}
