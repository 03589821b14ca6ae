import type { PricingSpec } from '../types.ts';
import type { BuiltinModel } from './builtin-types.ts';
import { utc } from './shared.ts';

// Image models at list prices. OpenAI's: gpt-image-1 bills tokens: text in $5, image in $10,
// image out $40 per million (an image is 272 to 6,240 output tokens by size and quality, so
// `maxOutputTokens` is the most one image can take: the hold is n of them). dall-e-3 bills
// per image by size and quality (money/image-prices.ts). Gemini's image model bills tokens:
// $0.30 per million in, $30 per million out, 1,290 output tokens an image.

const GPT_IMAGE_1: PricingSpec = { prompt: '0.000005', completion: '0.00004', image_prompt: '0.00001', cache_read: '0.00000125' };
const GEMINI_FLASH_IMAGE: PricingSpec = { prompt: '0.0000003', completion: '0.00003' };
const DALL_E_3: PricingSpec = {
  prompt: '0',
  completion: '0',
  // 1024x1024 standard; the others below.
  image_output: '0.04',
  image_output_by: { '1024x1792/*': '0.08', '1792x1024/*': '0.08', '*/hd': '0.08', '1024x1792/hd': '0.12', '1792x1024/hd': '0.12' },
};

export const IMAGE_MODELS: readonly BuiltinModel[] = [
  {
    id: 'openai/gpt-image-1',
    kind: 'image',
    name: 'OpenAI: GPT Image 1',
    description:
      "OpenAI's natively multimodal image model: generates and edits images (up to 16 inputs, a mask), transparent backgrounds; billed per token.",
    contextLength: 32_000,
    maxOutputTokens: 6_240,
    capabilities: ['text', 'multimodal'],
    aliases: [],
    created: utc('2025-04-23'),
    endpoints: [{ provider: 'openai', model: 'gpt-image-1', pricing: GPT_IMAGE_1, dataCollection: 'deny' }],
  },
  {
    id: 'openai/dall-e-3',
    kind: 'image',
    name: 'OpenAI: DALL·E 3',
    description: "OpenAI's DALL·E 3: one image per request, 1024x1024, 1792x1024 or 1024x1792, standard or hd; billed per image.",
    contextLength: 4_000,
    capabilities: ['text'],
    aliases: [],
    created: utc('2023-11-06'),
    endpoints: [{ provider: 'openai', model: 'dall-e-3', pricing: DALL_E_3, dataCollection: 'deny' }],
  },
  {
    // A chat model that draws (images in chat answers, as OpenRouter serves it), also served by /v1/images.
    id: 'google/gemini-2.5-flash-image',
    name: 'Google: Gemini 2.5 Flash Image',
    description:
      "Gemini's image model: generates and edits images from text and images, in chat answers or through /v1/images (one a request, by aspect ratio); billed per token.",
    contextLength: 32_768,
    maxOutputTokens: 1_290,
    capabilities: ['text', 'streaming', 'multimodal', 'image_output'],
    aliases: ['gemini-2.5-flash-image-preview'],
    created: utc('2025-08-26'),
    endpoints: [{ provider: 'google', model: 'gemini-2.5-flash-image', pricing: GEMINI_FLASH_IMAGE, dataCollection: 'deny' }],
  },
];
