import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32, inflateSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { assertBudgetsStopSurface } from '../support/surface-budgets.ts';
import { startOpenAITasksEmulator, type OpenAITasksEmulator } from '../emulators/openai-tasks-emulator.ts';
import { sendJson } from '../emulators/emulator-http.ts';
import {
  emulatorImage,
  geminiImageGenerate,
  imageEdits,
  imageGenerations,
  imagenPredict,
  readEditForm,
} from '../emulators/openai-images-handlers.ts';
import { writeTestServiceAccount } from '../support/google-service-account.ts';
import { simPng, SIM_IMAGE_SIDE } from '../../src/providers/sim/sim-png.ts';
import { simImageSeed } from '../../src/providers/sim/sim-images.ts';

/** The PNG's chunks, each CRC checked, and its pixels inflated: proof that it decodes. */
function decodePng(png: Buffer): { width: number; height: number; chunks: string[] } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    assert.equal(png.readUInt32BE(at + 8 + length), crc32(png.subarray(at + 4, at + 8 + length)), `CRC of ${type}`);
    chunks.push(type);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.deepEqual([data[8], data[9]], [8, 2], '8-bit RGB');
    }
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  assert.equal(inflateSync(Buffer.concat(idat)).length, height * (1 + width * 3), 'the pixels inflate to the image size');
  return { width, height, chunks };
}

describe('POST /v1/images/generations and /v1/images/edits', () => {
  let gw: TestGateway;
  let upstream: OpenAITasksEmulator;
  let client: OpenAI;
  let clockOffsetMs = 0;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-images-'));
    const serviceAccount = writeTestServiceAccount(dir, 'images');
    upstream = await startOpenAITasksEmulator();
    upstream.handle('/v1/images/generations', imageGenerations);
    upstream.handle('/v1/images/edits', imageEdits);
    upstream.handle('/v1/models/gemini-2.5-flash-image:generateContent', geminiImageGenerate);
    // A Gemini image model that draws two images where one was asked for (it may interleave several).
    upstream.handle('/v1/models/gemini-two-images:generateContent', (_req, res) =>
      sendJson(res, 200, {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [0, 1].map((i) => ({ inlineData: { mimeType: 'image/png', data: emulatorImage('gemini', i).toString('base64') } })),
            },
            finishReason: 'STOP',
          },
        ],
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 2580, totalTokenCount: 2592 },
      }),
    );
    upstream.handle(
      '/v1/projects/my-project/locations/us-central1/publishers/google/models/imagen-4.0-generate-001:predict',
      imagenPredict,
    );
    gw = await startTestGateway({
      now: () => Date.now() + clockOffsetMs,
      yaml: `server:
  image_url_ttl_seconds: 60
${SIM_ONLY}  - id: vendor
    kind: openai
    base_url: ${upstream.baseUrl}
    api_key: sk-upstream-secret
  - id: gem
    kind: google
    base_url: ${upstream.baseUrl}
    api_key: gem-upstream-secret
  - id: vertex-images
    kind: vertex
    project: my-project
    region: us-central1
    credentials_file: ${serviceAccount.keyFile}
    base_url: ${upstream.baseUrl.slice(0, -'/v1'.length)}
models:
  - id: acme/imagen
    kind: image
    endpoints:
      - provider: vertex-images
        model: imagen-4.0-generate-001
        pricing: { prompt: "0", completion: "0", image_output: "0.04" }
  - id: acme/gemini-image
    kind: image
    endpoints:
      - provider: gem
        model: gemini-2.5-flash-image
        max_output_tokens: 1290
        pricing: { prompt: "0.0000003", completion: "0.00003" }
  - id: acme/gemini-two
    kind: image
    endpoints:
      - provider: gem
        model: gemini-two-images
        pricing: { prompt: "0", completion: "0", image_output: "0.039" }
  - id: acme/gpt-image
    kind: image
    capabilities: [text, multimodal]
    endpoints:
      - provider: vendor
        model: gpt-image-1
        max_output_tokens: 6240
        pricing: { prompt: "0.000005", completion: "0.00004", image_prompt: "0.00001" }
  - id: acme/dalle
    kind: image
    endpoints:
      - provider: vendor
        model: dall-e-3
        pricing:
          prompt: "0"
          completion: "0"
          image_output: "0.04"
          image_output_by: { "1024x1792/*": "0.08", "1792x1024/*": "0.08", "*/hd": "0.08", "1024x1792/hd": "0.12", "1792x1024/hd": "0.12" }
`,
    });
    client = new OpenAI({ apiKey: gw.key, baseURL: gw.baseUrl });
  });
  after(async () => {
    await upstream.close();
    await gw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the sim draws real PNGs from the prompt with no credentials: base64, cost per image, a generation record', async () => {
    const raw = await client.images
      .generate({ model: 'switchyard/sim-image', prompt: 'a red fox', n: 2, size: '1024x1024' })
      .withResponse();
    const answer = raw.data;
    assert.equal(answer.data?.length, 2);
    for (let i = 0; i < 2; i++) {
      const png: Buffer = Buffer.from(answer.data[i]!.b64_json!, 'base64');
      assert.deepEqual(decodePng(png), { width: SIM_IMAGE_SIDE, height: SIM_IMAGE_SIDE, chunks: ['IHDR', 'IDAT', 'IEND'] });
      assert.deepEqual(png, simPng(simImageSeed('a red fox', i)), 'deterministic from the prompt and the index');
    }
    assert.notDeepEqual(answer.data[0]!.b64_json, answer.data[1]!.b64_json);
    assert.equal(answer.output_format, 'png');
    assert.equal(answer.size, '1024x1024');
    assert.ok(answer.created > 0);
    // $0.001 an image.
    assert.equal((answer.usage as unknown as { cost: number }).cost, 0.002);
    const id = raw.response.headers.get('x-generation-id');
    assert.match(id ?? '', /^gen-/);
    await gw.flush();
    const record = (await (
      await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } })
    ).json()) as { data: Record<string, unknown> };
    assert.equal(record.data.model, 'switchyard/sim-image');
    assert.equal(record.data.total_cost, 0.002);
    // Quality high is priced apart: $0.004.
    const high = await client.images.generate({ model: 'switchyard/sim-image', prompt: 'a red fox', quality: 'high' });
    assert.equal((high.usage as unknown as { cost: number }).cost, 0.004);
  });

  test("an edit through the SDK with a file: the sim draws from the prompt and the image's bytes", async () => {
    const input = simPng('input picture');
    const answer = await client.images.edit({
      model: 'switchyard/sim-image',
      prompt: 'add a hat',
      image: await toFile(input, 'in.png', { type: 'image/png' }),
    });
    const png = Buffer.from(answer.data![0]!.b64_json!, 'base64');
    decodePng(png);
    assert.deepEqual(png, simPng(simImageSeed('add a hat', 0, input.toString('base64'))));
    assert.equal((answer.usage as unknown as { cost: number }).cost, 0.001);
  });

  test('response_format url: the gateway serves the image to keys of the same account only, until it expires', async () => {
    const answer = await client.images.generate({ model: 'switchyard/sim-image', prompt: 'a lighthouse', response_format: 'url' });
    const url = answer.data![0]!.url!;
    assert.equal(answer.data![0]!.b64_json, undefined);
    assert.match(url, new RegExp(`^${gw.origin}/v1/images/files/[A-Za-z0-9_-]{32}$`));
    const own = await fetch(url, { headers: { authorization: `Bearer ${gw.key}` } });
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('content-type'), 'image/png');
    assert.equal(own.headers.get('x-content-type-options'), 'nosniff');
    assert.match(own.headers.get('cache-control') ?? '', /private/);
    assert.deepEqual(Buffer.from(await own.arrayBuffer()), simPng(simImageSeed('a lighthouse', 0)));
    // Another key of the same account is served; the same path under /api/v1 too.
    const { key: sibling } = await gw.services.accountService.createKey({ accountId: gw.accountId });
    assert.equal((await fetch(url.replace('/v1/', '/api/v1/'), { headers: { authorization: `Bearer ${sibling}` } })).status, 200);
    const other = await gw.services.accountService.createAccount({ name: 'other', creditsUsd: '5' });
    const { key: otherKey } = await gw.services.accountService.createKey({ accountId: other.id });
    const foreign = await fetch(url, { headers: { authorization: `Bearer ${otherKey}` } });
    assert.equal(foreign.status, 404, "another account's key gets 404");
    assert.equal(((await foreign.json()) as { error: { code: unknown } }).error !== undefined, true);
    assert.equal((await fetch(url)).status, 401, 'no key: 401');
    clockOffsetMs += 61_000;
    assert.equal((await fetch(url, { headers: { authorization: `Bearer ${gw.key}` } })).status, 404, 'expired after image_url_ttl_seconds');
  });

  test('gpt-image upstream: the JSON it got (no response_format), its token usage charged at text, image and output prices', async () => {
    upstream.requests.length = 0;
    const answer = await client.images.generate({
      model: 'acme/gpt-image',
      prompt: 'a cat',
      n: 2,
      size: '1536x1024',
      quality: 'medium',
      background: 'transparent',
      output_format: 'webp',
      user: 'u-9',
    });
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/images/generations');
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret');
    assert.deepEqual(sent.json, {
      model: 'gpt-image-1',
      prompt: 'a cat',
      n: 2,
      size: '1536x1024',
      quality: 'medium',
      output_format: 'webp',
      background: 'transparent',
      user: 'u-9',
    });
    assert.deepEqual(
      answer.data!.map((d) => Buffer.from(d.b64_json!, 'base64').toString()),
      [emulatorImage('gpt-image-1', 0).toString(), emulatorImage('gpt-image-1', 1).toString()],
    );
    assert.deepEqual(answer.usage, {
      input_tokens: 10,
      input_tokens_details: { text_tokens: 10, image_tokens: 0 },
      output_tokens: 200,
      total_tokens: 210,
      cost: 0.00805,
    } as never);
    assert.equal(answer.output_format, 'webp');
    // 10 × $5/M + 200 × $40/M = $0.00805
  });

  test("gpt-image edit: multipart fields and the files' bytes reach the upstream; input image tokens priced apart", async () => {
    upstream.requests.length = 0;
    const one = simPng('one');
    const two = simPng('two');
    const mask = simPng('mask');
    const answer = await client.images.edit({
      model: 'acme/gpt-image',
      prompt: 'merge them',
      size: '1024x1024',
      quality: 'low',
      input_fidelity: 'high',
      image: [await toFile(one, 'one.png', { type: 'image/png' }), await toFile(two, 'two.png', { type: 'image/png' })],
      mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
    });
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/images/edits');
    assert.match(String(sent.headers['content-type']), /^multipart\/form-data; boundary=/);
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret');
    const form = await readEditForm(sent);
    assert.deepEqual(form.fields, {
      model: 'gpt-image-1',
      prompt: 'merge them',
      n: '1',
      size: '1024x1024',
      quality: 'low',
      input_fidelity: 'high',
    });
    assert.deepEqual(
      form.files.map((f) => [f.name, f.filename, f.type]),
      [
        ['image[]', 'one.png', 'image/png'],
        ['image[]', 'two.png', 'image/png'],
        ['mask', 'mask.png', 'image/png'],
      ],
    );
    assert.deepEqual(
      form.files.map((f) => f.data),
      [one, two, mask],
    );
    // 10 text × $5/M + 40 image × $10/M + 100 out × $40/M = $0.00445
    assert.equal((answer.usage as unknown as { cost: number }).cost, 0.00445);
  });

  test("dall-e-3 upstream: asked for b64_json, answered as a gateway URL by default (OpenAI's default), priced by size and quality", async () => {
    upstream.requests.length = 0;
    const wide = await client.images.generate({
      model: 'acme/dalle',
      prompt: 'a bridge',
      size: '1792x1024',
      quality: 'hd',
      style: 'natural',
    });
    assert.deepEqual(upstream.requests.at(-1)!.json, {
      model: 'dall-e-3',
      prompt: 'a bridge',
      n: 1,
      size: '1792x1024',
      quality: 'hd',
      response_format: 'b64_json',
      style: 'natural',
    });
    assert.match(wide.data![0]!.url!, /\/v1\/images\/files\//);
    assert.equal(wide.data![0]!.revised_prompt, 'revised 0');
    const served = await fetch(wide.data![0]!.url!, { headers: { authorization: `Bearer ${gw.key}` } });
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), emulatorImage('dall-e-3', 0));
    assert.equal((wide.usage as unknown as { cost: number }).cost, 0.12);
    const plain = await client.images.generate({ model: 'acme/dalle', prompt: 'a bridge', response_format: 'b64_json' });
    assert.equal(Buffer.from(plain.data![0]!.b64_json!, 'base64').toString(), emulatorImage('dall-e-3', 0).toString());
    assert.equal((plain.usage as unknown as { cost: number }).cost, 0.04);
    const hd = await client.images.generate({ model: 'acme/dalle', prompt: 'a bridge', quality: 'hd', response_format: 'b64_json' });
    assert.equal((hd.usage as unknown as { cost: number }).cost, 0.08);
  });

  test("Gemini image model: generateContent with an IMAGE response modality, the size as an aspect ratio, an edit's image inline; token usage charged", async () => {
    upstream.requests.length = 0;
    const answer = await client.images.generate({ model: 'acme/gemini-image', prompt: 'a wide valley', size: '1792x1024' });
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/models/gemini-2.5-flash-image:generateContent');
    assert.equal(sent.headers['x-goog-api-key'], 'gem-upstream-secret');
    assert.deepEqual(sent.json, {
      contents: [{ role: 'user', parts: [{ text: 'a wide valley' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9' } },
    });
    assert.equal(Buffer.from(answer.data![0]!.b64_json!, 'base64').toString(), emulatorImage('gemini', 0).toString());
    assert.equal(answer.data![0]!.revised_prompt, 'Here is your image.');
    // 12 × $0.30/M + 1,290 × $30/M = $0.0387036
    assert.equal((answer.usage as unknown as { cost: number }).cost, 0.0387036);
    const input = simPng('gemini input');
    await client.images.edit({
      model: 'acme/gemini-image',
      prompt: 'make it night',
      image: await toFile(input, 'in.png', { type: 'image/png' }),
    });
    assert.deepEqual(upstream.requests.at(-1)!.json.contents[0].parts, [
      { text: 'make it night' },
      { inlineData: { mimeType: 'image/png', data: input.toString('base64') } },
    ]);
    const two = await postJson(
      `${gw.baseUrl}/images/generations`,
      { model: 'acme/gemini-image', prompt: 'x', n: 2 },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.deepEqual([two.status, two.json.error.param], [400, 'n']);
  });

  test('Imagen on Vertex: :predict with sampleCount and an aspect ratio, a signed bearer token, priced per image', async () => {
    upstream.requests.length = 0;
    const answer = await client.images.generate({
      model: 'acme/imagen',
      prompt: 'a harbour',
      n: 3,
      size: '1024x1792',
      output_format: 'jpeg',
      output_compression: 80,
    });
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/projects/my-project/locations/us-central1/publishers/google/models/imagen-4.0-generate-001:predict');
    assert.match(String(sent.headers.authorization), /^Bearer ey/);
    assert.deepEqual(sent.json, {
      instances: [{ prompt: 'a harbour' }],
      parameters: { sampleCount: 3, aspectRatio: '9:16', outputOptions: { mimeType: 'image/jpeg', compressionQuality: 80 } },
    });
    assert.deepEqual(
      answer.data!.map((d) => Buffer.from(d.b64_json!, 'base64').toString()),
      [0, 1, 2].map((i) => emulatorImage('imagen', i).toString()),
    );
    assert.equal((answer.usage as unknown as { cost: number }).cost, 0.12);
    const five = await postJson(
      `${gw.baseUrl}/images/generations`,
      { model: 'acme/imagen', prompt: 'x', n: 5 },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.deepEqual([five.status, five.json.error.param], [400, 'n']);
  });

  test('the hold is the worst case of n images: 10 gpt-image images need more than $1, one does not', async () => {
    const poor = await gw.services.accountService.createAccount({ name: 'poor', creditsUsd: '1' });
    const { key } = await gw.services.accountService.createKey({ accountId: poor.id });
    const auth = { authorization: `Bearer ${key}` };
    upstream.requests.length = 0;
    // 10 × 6,240 output tokens × $40/M = $2.496 held.
    const ten = await postJson(`${gw.baseUrl}/images/generations`, { model: 'acme/gpt-image', prompt: 'x', n: 10 }, auth);
    assert.equal(ten.status, 402);
    assert.equal(upstream.requests.length, 0, 'refused before any upstream call');
    const one = await postJson(`${gw.baseUrl}/images/generations`, { model: 'acme/gpt-image', prompt: 'x', n: 1 }, auth);
    assert.equal(one.status, 200);
  });

  test("bad input is a 400 in OpenAI's shape naming the parameter", async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const cases: [unknown, string][] = [
      [{ model: 'switchyard/sim-image' }, 'prompt'],
      [{ model: 'switchyard/sim-image', prompt: '' }, 'prompt'],
      [{ model: 'switchyard/sim-image', prompt: 'x', n: 0 }, 'n'],
      [{ model: 'switchyard/sim-image', prompt: 'x', n: 11 }, 'n'],
      [{ model: 'switchyard/sim-image', prompt: 'x', n: 1.5 }, 'n'],
      [{ model: 'switchyard/sim-image', prompt: 'x', size: 'huge' }, 'size'],
      [{ model: 'switchyard/sim-image', prompt: 'x', response_format: 'gif' }, 'response_format'],
      [{ model: 'switchyard/sim-image', prompt: 'x', quality: 'ultra' }, 'quality'],
      [{ model: 'switchyard/sim-image', prompt: 'x', output_format: 'bmp' }, 'output_format'],
      [{ model: 'switchyard/sim-image', prompt: 'x', background: 'transparent', output_format: 'jpeg' }, 'background'],
      [{ model: 'switchyard/sim-image', prompt: 'x', stream: true }, 'stream'],
      [{ model: 'switchyard/sim-image', prompt: 'x', temperature: 1 }, 'temperature'],
      // The family's own rules, before any upstream call.
      [{ model: 'acme/dalle', prompt: 'x', n: 2 }, 'n'],
      [{ model: 'acme/dalle', prompt: 'x', size: '1536x1024' }, 'size'],
      [{ model: 'acme/gpt-image', prompt: 'x', quality: 'hd' }, 'quality'],
      [{ model: 'acme/gpt-image', prompt: 'x', style: 'vivid' }, 'style'],
    ];
    upstream.requests.length = 0;
    for (const [body, param] of cases) {
      const res = await postJson(`${gw.baseUrl}/images/generations`, body, auth);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.error.type, 'invalid_request_error');
      assert.equal(res.json.error.param, param, JSON.stringify(body));
    }
    assert.equal(upstream.requests.length, 0);
    const edit = async (form: FormData): Promise<{ status: number; json: any }> => {
      const res = await fetch(`${gw.baseUrl}/images/edits`, { method: 'POST', headers: auth, body: form });
      return { status: res.status, json: await res.json() };
    };
    const noImage = new FormData();
    noImage.append('model', 'switchyard/sim-image');
    noImage.append('prompt', 'x');
    const missing = await edit(noImage);
    assert.deepEqual([missing.status, missing.json.error.param], [400, 'image']);
    const notImage = new FormData();
    notImage.append('model', 'switchyard/sim-image');
    notImage.append('prompt', 'x');
    notImage.append('image', new File([Buffer.from('not a picture')], 'a.txt', { type: 'text/plain' }));
    const wrong = await edit(notImage);
    assert.deepEqual([wrong.status, wrong.json.error.param], [400, 'image']);
    const badN = new FormData();
    badN.append('model', 'switchyard/sim-image');
    badN.append('prompt', 'x');
    badN.append('n', 'many');
    badN.append('image', new File([simPng('x')], 'x.png', { type: 'image/png' }));
    const n = await edit(badN);
    assert.deepEqual([n.status, n.json.error.param], [400, 'n']);
    const json = await postJson(`${gw.baseUrl}/images/edits`, { model: 'switchyard/sim-image', prompt: 'x' }, auth);
    assert.deepEqual([json.status, json.json.error.param], [400, 'body']);
    const dalleEdit = new FormData();
    dalleEdit.append('model', 'acme/dalle');
    dalleEdit.append('prompt', 'x');
    dalleEdit.append('image', new File([simPng('x')], 'x.png', { type: 'image/png' }));
    const refused = await edit(dalleEdit);
    assert.deepEqual([refused.status, refused.json.error.param], [400, 'model']);
  });

  test('a chat model on /images and an image model on chat are clear 400s naming the right endpoint', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const onImages = await postJson(`${gw.baseUrl}/images/generations`, { model: 'switchyard/sim-fast', prompt: 'x' }, auth);
    assert.equal(onImages.status, 400);
    assert.equal(onImages.json.error.param, 'model');
    assert.match(onImages.json.error.message, /chat model.*\/v1\/chat\/completions/);
    const onChat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-image', messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    assert.equal(onChat.status, 400);
    assert.match(onChat.json.error.message, /image model.*\/v1\/images\/generations/);
  });

  test("GET /v1/models lists the image models with OpenRouter's modalities and their per-image price", async () => {
    const only = (await (await fetch(`${gw.baseUrl}/models?output_modalities=image`)).json()) as {
      data: {
        id: string;
        kind: string;
        pricing: Record<string, string>;
        architecture: { input_modalities: string[]; output_modalities: string[] };
      }[];
    };
    const sim = only.data.find((m) => m.id === 'switchyard/sim-image')!;
    assert.equal(sim.kind, 'image');
    assert.deepEqual(sim.architecture.output_modalities, ['image']);
    assert.deepEqual(sim.architecture.input_modalities, ['text', 'image']);
    assert.equal(sim.pricing.image_output, '0.001');
    assert.deepEqual(only.data.map((m) => m.id).sort(), [
      'acme/dalle',
      'acme/gemini-image',
      'acme/gemini-two',
      'acme/gpt-image',
      'acme/imagen',
      'switchyard/sim-image',
    ]);
  });

  test('a balance and a key limit stop image generations exactly as they stop chat', async () => {
    await assertBudgetsStopSurface(gw, async (key) => {
      const res = await postJson(
        `${gw.baseUrl}/images/generations`,
        { model: 'switchyard/sim-image', prompt: 'a tree' },
        { authorization: `Bearer ${key}` },
      );
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });

  test('a balance and a key limit stop image edits exactly as they stop chat', async () => {
    const png = simPng('to edit');
    await assertBudgetsStopSurface(gw, async (key) => {
      const form = new FormData();
      form.append('model', 'switchyard/sim-image');
      form.append('prompt', 'a tree');
      form.append('image', new File([png], 'in.png', { type: 'image/png' }));
      const res = await fetch(`${gw.baseUrl}/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      await res.arrayBuffer();
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });

  test('an upstream that makes more images than asked: the client gets n, and is charged n (the hold was for n)', async () => {
    const raw = await client.images.generate({ model: 'acme/gemini-two', prompt: 'one cat', n: 1 }).withResponse();
    assert.equal(raw.data.data?.length, 1);
    assert.equal((raw.data.usage as unknown as { cost: number }).cost, 0.039);
    await gw.flush();
    const id = raw.response.headers.get('x-generation-id');
    const record = (await (
      await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } })
    ).json()) as { data: Record<string, unknown> };
    assert.equal(record.data.total_cost, 0.039);
  });

  test("one account making many URL images never drops another account's (each holds a share of the store)", async () => {
    // A store of 40 KiB: each account may fill 10 KiB (sim PNGs of a few hundred bytes, 1 KiB of overhead each).
    const small = await startTestGateway({ yaml: `server:\n  image_url_max_bytes: 40960\n${SIM_ONLY}` });
    try {
      const victim = await small.services.accountService.createAccount({ name: 'victim', creditsUsd: '5' });
      const { key: victimKey } = await small.services.accountService.createKey({ accountId: victim.id });
      const made = await postJson(
        `${small.baseUrl}/images/generations`,
        { model: 'switchyard/sim-image', prompt: 'mine', response_format: 'url' },
        { authorization: `Bearer ${victimKey}` },
      );
      assert.equal(made.status, 200, made.text);
      const url: string = made.json.data[0].url;
      for (let i = 0; i < 20; i++) {
        const flood = await postJson(
          `${small.baseUrl}/images/generations`,
          { model: 'switchyard/sim-image', prompt: `flood ${i}`, n: 10, response_format: 'url' },
          { authorization: `Bearer ${small.key}` },
        );
        assert.equal(flood.status, 200, flood.text);
      }
      assert.equal(
        (await fetch(url, { headers: { authorization: `Bearer ${victimKey}` } })).status,
        200,
        "the victim's image is still served",
      );
    } finally {
      await small.close();
    }
  });
});
