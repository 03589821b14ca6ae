import type { ServerResponse } from 'node:http';
import { sendJson } from './emulator-http.ts';
import type { RecordedTaskRequest, TaskHandler } from './openai-tasks-emulator.ts';

// OpenAI's image endpoints as the task emulator answers them (`upstream.handle(path, fn)`):
// generations take JSON, edits multipart; each answers `n` images as base64 of a fixed
// payload naming the request, and gpt-image's usage object. A test reads the parsed form of
// an edit with `readEditForm`.

/** The bytes the emulator answers for image `index` of a request for `model`. */
export function emulatorImage(model: string, index: number): Buffer {
  return Buffer.from(`emulated ${model} image ${index}`);
}

/** The usage a gpt-image answer reports: 10 text tokens, 20 per input image, 100 per output image. */
export function emulatorImageUsage(
  images: number,
  inputImages: number,
): {
  input_tokens: number;
  input_tokens_details: { text_tokens: number; image_tokens: number };
  output_tokens: number;
  total_tokens: number;
} {
  const input = 10 + 20 * inputImages;
  return {
    input_tokens: input,
    input_tokens_details: { text_tokens: 10, image_tokens: 20 * inputImages },
    output_tokens: 100 * images,
    total_tokens: input + 100 * images,
  };
}

export interface EditForm {
  fields: Record<string, string>;
  files: { name: string; filename: string; type: string; data: Buffer }[];
}

export async function readEditForm(req: RecordedTaskRequest): Promise<EditForm> {
  const form = await new Response(req.body, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
  const out: EditForm = { fields: {}, files: [] };
  for (const [name, value] of form) {
    if (typeof value === 'string') out.fields[name] = value;
    else out.files.push({ name, filename: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) });
  }
  return out;
}

function answer(res: ServerResponse, model: string, n: number, inputImages: number, extra: Record<string, unknown>): void {
  const gptImage = model.startsWith('gpt-image');
  const body: Record<string, unknown> = {
    created: 1_700_000_000,
    data: Array.from({ length: n }, (_, i) => ({
      b64_json: emulatorImage(model, i).toString('base64'),
      ...(gptImage ? {} : { revised_prompt: `revised ${i}` }),
    })),
    ...extra,
  };
  if (gptImage) body.usage = emulatorImageUsage(n, inputImages);
  sendJson(res, 200, body);
}

export const imageGenerations: TaskHandler = (req, res) => {
  const body = req.json as { model?: string; n?: number; size?: string; quality?: string; output_format?: string } | null;
  if (body === null || typeof body.model !== 'string')
    return sendJson(res, 400, { error: { message: 'a JSON body with model is required', type: 'invalid_request_error' } });
  const gptImage = body.model.startsWith('gpt-image');
  answer(
    res,
    body.model,
    body.n ?? 1,
    0,
    gptImage
      ? {
          output_format: body.output_format ?? 'png',
          size: body.size ?? '1024x1024',
          quality: body.quality ?? 'high',
          background: 'opaque',
        }
      : {},
  );
};

export const imageEdits: TaskHandler = (req, res) => {
  void readEditForm(req).then(
    (form) => {
      const model = form.fields.model ?? '';
      const inputs = form.files.filter((f) => f.name === 'image' || f.name === 'image[]').length;
      answer(
        res,
        model,
        Number(form.fields.n ?? '1'),
        inputs,
        model.startsWith('gpt-image')
          ? { output_format: 'png', size: form.fields.size ?? '1024x1024', quality: form.fields.quality ?? 'high' }
          : {},
      );
    },
    () => sendJson(res, 400, { error: { message: 'not multipart', type: 'invalid_request_error' } }),
  );
};

/**
 * Gemini's `models/{model}:generateContent` for image models, served on the same emulator
 * (a `kind: google` provider whose base_url is the emulator's): one inline PNG payload,
 * a line of text beside it, and usageMetadata (12 prompt tokens, 1,290 image tokens out).
 */
export const geminiImageGenerate: TaskHandler = (req, res) => {
  const body = req.json as { contents?: unknown; generationConfig?: { responseModalities?: unknown } } | null;
  if (body === null || !Array.isArray(body.contents))
    return sendJson(res, 400, { error: { code: 400, message: 'contents required', status: 'INVALID_ARGUMENT' } });
  sendJson(res, 200, {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: 'Here is your image.' },
            { inlineData: { mimeType: 'image/png', data: emulatorImage('gemini', 0).toString('base64') } },
          ],
        },
        finishReason: 'STOP',
      },
    ],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 },
  });
};

/** Vertex AI's Imagen `:predict`: `sampleCount` PNG payloads. */
export const imagenPredict: TaskHandler = (req, res) => {
  const body = req.json as { instances?: { prompt?: string }[]; parameters?: { sampleCount?: number } } | null;
  if (body === null || typeof body.instances?.[0]?.prompt !== 'string')
    return sendJson(res, 400, { error: { code: 400, message: 'instances[0].prompt required', status: 'INVALID_ARGUMENT' } });
  const n = body.parameters?.sampleCount ?? 1;
  sendJson(res, 200, {
    predictions: Array.from({ length: n }, (_, i) => ({
      bytesBase64Encoded: emulatorImage('imagen', i).toString('base64'),
      mimeType: 'image/png',
    })),
  });
};
