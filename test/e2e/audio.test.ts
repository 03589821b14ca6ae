import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { toFile } from 'openai';
import { postJson, SIM_ONLY, startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { assertBudgetsStopSurface } from '../support/surface-budgets.ts';
import { mp3Bytes, wavBytes } from '../support/audio-files.ts';
import {
  azureAudioHandlers,
  EMULATOR_SPEECH_USAGE,
  EMULATOR_TRANSCRIBE_USAGE,
  emulatorSpeechBytes,
  emulatorTranscript,
} from '../emulators/openai-audio-handlers.ts';
import { startOpenAITasksEmulator, type OpenAITasksEmulator, type RecordedTaskRequest } from '../emulators/openai-tasks-emulator.ts';
import { sendJson } from '../emulators/emulator-http.ts';
import { readAudioDuration } from '../../src/canonical/audio-duration/read-audio-duration.ts';

// Speech, transcription and translation (docs/audio.md) through real HTTP with the official
// openai SDK: the sim (a real WAV spoken and heard back), and OpenAI-compatible upstreams
// (OpenAI's own shape, Azure's deployment path, Groq's profile) whose requests are checked.

const SENTENCE = 'The quick brown fox jumps over the lazy dog';

async function form(recorded: RecordedTaskRequest): Promise<FormData> {
  return new Response(recorded.body, { headers: { 'content-type': String(recorded.headers['content-type']) } }).formData();
}

async function record(gw: TestGateway, id: string | null): Promise<Record<string, unknown>> {
  await gw.flush();
  const res = await fetch(`${gw.baseUrl}/generation?id=${id}`, { headers: { authorization: `Bearer ${gw.key}` } });
  return ((await res.json()) as { data: Record<string, unknown> }).data;
}

describe('audio: speech, transcriptions, translations', () => {
  let gw: TestGateway;
  let upstream: OpenAITasksEmulator;
  let broken: OpenAITasksEmulator;
  let client: OpenAI;
  before(async () => {
    upstream = await startOpenAITasksEmulator();
    broken = await startOpenAITasksEmulator();
    broken.handle('/v1/audio/transcriptions', (_req, res) =>
      sendJson(res, 500, { error: { message: 'overloaded', type: 'server_error' } }),
    );
    for (const [path, handler] of azureAudioHandlers('my-whisper')) upstream.handle(path, handler);
    const origin = upstream.baseUrl.replace(/\/v1$/, '');
    gw = await startTestGateway({
      yaml: `${SIM_ONLY}  - id: vendor
    kind: openai
    base_url: ${upstream.baseUrl}
    api_key: sk-upstream-secret
  - id: az
    kind: openai
    profile: azure
    base_url: ${origin}
    api_key: az-secret
  - id: broken
    kind: openai
    base_url: ${broken.baseUrl}
  - id: guarded
    kind: sim
    moderated: true
  - id: gq
    kind: openai
    profile: groq
    base_url: ${upstream.baseUrl}
    api_key: gq-secret
models:
  - id: acme/tts
    kind: speech
    context_length: 8192
    endpoints:
      - { provider: vendor, model: vendor-tts, pricing: { prompt: "0", completion: "0", character: "0.000015" } }
  - id: acme/tts-tokens
    kind: speech
    context_length: 8192
    endpoints:
      - { provider: vendor, model: vendor-tts-tokens, pricing: { prompt: "0.0000006", completion: "0.000012" } }
  - id: acme/whisper
    kind: transcription
    context_length: 8192
    endpoints:
      - { provider: vendor, model: vendor-whisper, pricing: { prompt: "0", completion: "0", audio_second: "0.0001" } }
  - id: acme/transcribe-tokens
    kind: transcription
    context_length: 16000
    endpoints:
      - { provider: vendor, model: gpt-4o-transcribe, max_output_tokens: 2000, pricing: { prompt: "0.000006", completion: "0.00001" } }
  - id: acme/whisper-twice
    kind: transcription
    context_length: 8192
    endpoints:
      - { provider: broken, model: w, pricing: { prompt: "0", completion: "0", audio_second: "0.0001" } }
      - { provider: vendor, model: w, pricing: { prompt: "0", completion: "0", audio_second: "0.0001" } }
  - id: acme/guarded-speech
    kind: speech
    context_length: 8192
    endpoints:
      - { provider: guarded, model: s, pricing: { prompt: "0", completion: "0", character: "0.00001" } }
  - id: acme/guarded-transcribe
    kind: transcription
    context_length: 8192
    endpoints:
      - { provider: guarded, model: t, pricing: { prompt: "0", completion: "0", audio_second: "0.0001" } }
  - id: acme/azure-whisper
    kind: transcription
    context_length: 8192
    endpoints:
      - { provider: az, model: my-whisper, pricing: { prompt: "0", completion: "0", audio_second: "0.0001" } }
  - id: acme/groq-whisper
    kind: transcription
    context_length: 8192
    endpoints:
      - { provider: gq, model: whisper-large-v3, pricing: { prompt: "0", completion: "0", audio_second: "0.000030833333333333" } }
moderation:
  rules:
    - name: forbidden
      patterns: ["\\\\bforbidden words\\\\b"]
`,
    });
    client = new OpenAI({ apiKey: gw.key, baseURL: gw.baseUrl });
  });
  after(async () => {
    await broken.close();
    await upstream.close();
    await gw?.close();
  });

  test('the sim speaks a real WAV: its duration from its header, X-Generation-Id, charged per character before the answer', async () => {
    const res = await client.audio.speech.create({
      model: 'switchyard/sim-speech',
      voice: 'alloy',
      input: SENTENCE,
      response_format: 'wav',
    });
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    const wav = Buffer.from(await res.arrayBuffer());
    assert.deepEqual(readAudioDuration(wav), { container: 'wav', durationMs: SENTENCE.length * 60 });
    const id = res.headers.get('x-generation-id');
    assert.match(id ?? '', /^gen-/);
    const rec = await record(gw, id);
    assert.equal(rec.model, 'switchyard/sim-speech');
    // 43 characters at $0.00003.
    assert.equal(rec.total_cost, 0.00129);
    // Deterministic: the same text, the same bytes; speed 2 is half as long; pcm is the bare samples.
    const again = Buffer.from(
      await (
        await client.audio.speech.create({ model: 'switchyard/sim-speech', voice: 'alloy', input: SENTENCE, response_format: 'wav' })
      ).arrayBuffer(),
    );
    assert.ok(again.equals(wav));
    const fast = Buffer.from(
      await (
        await client.audio.speech.create({
          model: 'switchyard/sim-speech',
          voice: 'alloy',
          input: SENTENCE,
          response_format: 'wav',
          speed: 2,
        })
      ).arrayBuffer(),
    );
    assert.equal(readAudioDuration(fast).durationMs, SENTENCE.length * 30);
    const pcm = await client.audio.speech.create({ model: 'switchyard/sim-speech', voice: 'alloy', input: 'hi', response_format: 'pcm' });
    assert.equal(pcm.headers.get('content-type'), 'audio/pcm');
    assert.equal((await pcm.arrayBuffer()).byteLength, 2 * 480 * 2);
  });

  test("the sim hears its own voice back, in every response format, timed over the header's duration", async () => {
    const wav = Buffer.from(
      await (
        await client.audio.speech.create({ model: 'switchyard/sim-speech', voice: 'alloy', input: SENTENCE, response_format: 'wav' })
      ).arrayBuffer(),
    );
    const raw = await client.audio.transcriptions
      .create({ model: 'switchyard/sim-transcribe', file: await toFile(wav, 'fox.wav') })
      .withResponse();
    assert.equal(raw.data.text, SENTENCE);
    // 2.58 s bills 3 seconds at $0.0001.
    assert.deepEqual((raw.data as unknown as { usage: unknown }).usage, { type: 'duration', seconds: 3, cost: 0.0003 });
    assert.equal((await record(gw, raw.response.headers.get('x-generation-id'))).total_cost, 0.0003);

    const text = await client.audio.transcriptions.create({
      model: 'switchyard/sim-transcribe',
      file: await toFile(wav, 'fox.wav'),
      response_format: 'text',
    });
    assert.equal(text, `${SENTENCE}\n`);
    const srt = await client.audio.transcriptions.create({
      model: 'switchyard/sim-transcribe',
      file: await toFile(wav, 'fox.wav'),
      response_format: 'srt',
    });
    // Eight words a segment, each word's share of 2.58 s proportional to its length.
    assert.equal(
      srt,
      '1\n00:00:00,000 --> 00:00:02,359\nThe quick brown fox jumps over the lazy\n\n2\n00:00:02,359 --> 00:00:02,580\ndog\n\n',
    );
    const vtt = await client.audio.transcriptions.create({
      model: 'switchyard/sim-transcribe',
      file: await toFile(wav, 'fox.wav'),
      response_format: 'vtt',
    });
    assert.equal(
      vtt,
      'WEBVTT\n\n00:00:00.000 --> 00:00:02.359\nThe quick brown fox jumps over the lazy\n\n00:00:02.359 --> 00:00:02.580\ndog\n\n',
    );
    const verbose = await client.audio.transcriptions.create({
      model: 'switchyard/sim-transcribe',
      file: await toFile(wav, 'fox.wav'),
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    });
    assert.equal(verbose.duration, 2.58);
    assert.equal(verbose.language, 'english');
    assert.equal(verbose.words!.length, 9);
    assert.deepEqual(verbose.words!.at(-1), { word: 'dog', start: 2.359, end: 2.58 });
    assert.equal(verbose.segments!.length, 2);
    // Any other file: a fixed sentence naming the duration its header says.
    const other = await client.audio.translations.create({
      model: 'switchyard/sim-transcribe',
      file: await toFile(mp3Bytes(100), 'talk.mp3'),
    });
    assert.equal(other.text, 'The sim heard 2.6 seconds of audio.');
  });

  test('an OpenAI-compatible upstream: the speech request it got, its audio, charged per character', async () => {
    upstream.requests.length = 0;
    const res = await client.audio.speech.create({
      model: 'acme/tts',
      voice: 'nova',
      input: 'Hello there',
      speed: 1.5,
      instructions: 'cheerful',
    });
    assert.equal(res.headers.get('content-type'), 'audio/mpeg');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), emulatorSpeechBytes('vendor-tts', 'nova', 'Hello there', 'mp3'));
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/audio/speech');
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret');
    assert.deepEqual(sent.json, {
      model: 'vendor-tts',
      input: 'Hello there',
      voice: 'nova',
      response_format: 'mp3',
      speed: 1.5,
      instructions: 'cheerful',
    });
    // 11 characters at $0.000015.
    assert.equal((await record(gw, res.headers.get('x-generation-id'))).total_cost, 0.000165);
  });

  test('a speech model billed per token is asked for the SSE answer: the audio joined, its tokens charged', async () => {
    const res = await client.audio.speech.create({
      model: 'acme/tts-tokens',
      voice: 'coral',
      input: 'Tokens please',
      response_format: 'wav',
    });
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), emulatorSpeechBytes('vendor-tts-tokens', 'coral', 'Tokens please', 'wav'));
    assert.equal(upstream.requests.at(-1)!.json.stream_format, 'sse');
    const rec = await record(gw, res.headers.get('x-generation-id'));
    assert.equal(rec.tokens_prompt, EMULATOR_SPEECH_USAGE.input_tokens);
    // 7 × $0.0000006 + 250 × $0.000012.
    assert.equal(rec.total_cost, 0.0030042);
  });

  test("a transcription upstream gets the multipart fields and the file's bytes; text is asked as json and rendered", async () => {
    upstream.requests.length = 0;
    const clip = mp3Bytes(100, { header: 'xing' });
    const raw = await client.audio.transcriptions
      .create({
        model: 'acme/whisper',
        file: await toFile(clip, 'clip.mp3', { type: 'audio/mpeg' }),
        language: 'en',
        prompt: 'A fox.',
        temperature: 0.2,
        response_format: 'text',
      })
      .withResponse();
    assert.equal(raw.data, `${emulatorTranscript('clip.mp3', clip.length, 'transcribe')}\n`);
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/audio/transcriptions');
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream-secret');
    assert.match(String(sent.headers['content-type']), /^multipart\/form-data; boundary=/);
    const fields = await form(sent);
    assert.deepEqual(Object.fromEntries([...fields].filter(([k]) => k !== 'file')), {
      model: 'vendor-whisper',
      response_format: 'json',
      language: 'en',
      prompt: 'A fox.',
      temperature: '0.2',
    });
    const file = fields.get('file') as File;
    assert.equal(file.name, 'clip.mp3');
    assert.equal(file.type, 'audio/mpeg');
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(clip), "the file's bytes, unchanged");
    // 100 frames of 26.12 ms = 2.612 s → 3 seconds at $0.0001.
    assert.equal((await record(gw, raw.response.headers.get('x-generation-id'))).total_cost, 0.0003);

    const srt = await client.audio.transcriptions.create({
      model: 'acme/whisper',
      file: await toFile(clip, 'clip.mp3'),
      response_format: 'srt',
    });
    assert.equal((await form(upstream.requests.at(-1)!)).get('response_format'), 'srt');
    assert.equal(srt, `1\n00:00:00,000 --> 00:00:02,500\n${emulatorTranscript('clip.mp3', clip.length, 'transcribe')}\n\n`);
    const verbose = await client.audio.transcriptions.create({
      model: 'acme/whisper',
      file: await toFile(clip, 'clip.mp3'),
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
    });
    assert.deepEqual((await form(upstream.requests.at(-1)!)).getAll('timestamp_granularities[]'), ['word']);
    assert.equal(verbose.segments!.length, 1);
    assert.deepEqual(verbose.words, [{ word: 'Heard', start: 0, end: 0.4 }]);
  });

  test('translations go to the translations path; a token-billed transcription is charged its tokens', async () => {
    const wav = wavBytes(1500);
    const t = await client.audio.translations.create({ model: 'acme/whisper', file: await toFile(wav, 'hola.wav') });
    assert.equal(t.text, emulatorTranscript('hola.wav', wav.length, 'translate'));
    assert.equal(upstream.requests.at(-1)!.path, '/v1/audio/translations');
    const raw = await client.audio.transcriptions
      .create({ model: 'acme/transcribe-tokens', file: await toFile(wav, 'a.wav') })
      .withResponse();
    const usage = (raw.data as unknown as { usage: Record<string, unknown> }).usage;
    // 90 × $0.000006 + 12 × $0.00001.
    assert.deepEqual(usage, { type: 'tokens', input_tokens: 90, output_tokens: 12, total_tokens: 102, cost: 0.00066 });
    const rec = await record(gw, raw.response.headers.get('x-generation-id'));
    assert.equal(rec.tokens_prompt, EMULATOR_TRANSCRIBE_USAGE.input_tokens);
    assert.equal(rec.total_cost, 0.00066);
  });

  test("Azure's deployment path with its api-key header, and Groq's profile, serve transcription", async () => {
    const wav = wavBytes(1000);
    const az = await client.audio.transcriptions.create({ model: 'acme/azure-whisper', file: await toFile(wav, 'az.wav') });
    assert.equal(az.text, emulatorTranscript('az.wav', wav.length, 'transcribe'));
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/openai/deployments/my-whisper/audio/transcriptions');
    assert.equal(sent.headers['api-key'], 'az-secret');
    assert.equal((await form(sent)).get('model'), 'my-whisper');
    const gq = await client.audio.transcriptions.create({ model: 'acme/groq-whisper', file: await toFile(wav, 'gq.wav') });
    assert.equal(gq.text, emulatorTranscript('gq.wav', wav.length, 'transcribe'));
    assert.equal(upstream.requests.at(-1)!.headers.authorization, 'Bearer gq-secret');
  });

  test('a failed upstream falls over to the next endpoint, which gets the whole file again (provider preferences as a form field)', async () => {
    const clip = wavBytes(1200);
    const body = new FormData();
    body.append('file', new File([clip], 'again.wav', { type: 'audio/wav' }));
    body.append('model', 'acme/whisper-twice');
    body.append('provider', JSON.stringify({ order: ['broken', 'vendor'] }));
    const res = await fetch(`${gw.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` }, body });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { text: string }).text, emulatorTranscript('again.wav', clip.length, 'transcribe'));
    const tried = broken.requests.at(-1)!;
    const served = upstream.requests.at(-1)!;
    for (const sent of [tried, served]) {
      const file = (await form(sent)).get('file') as File;
      assert.ok(Buffer.from(await file.arrayBuffer()).equals(clip), 'each attempt sends the whole file');
    }
    const bad = new FormData();
    bad.append('file', new File([clip], 'a.wav'));
    bad.append('model', 'acme/whisper-twice');
    bad.append('provider', '{not json');
    const refused = await fetch(`${gw.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}` },
      body: bad,
    });
    assert.equal(refused.status, 400);
    assert.equal(((await refused.json()) as any).error.param, 'provider');
  });

  test("a moderated provider's rules read the speech input and the transcription prompt", async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const spoken = await postJson(
      `${gw.baseUrl}/audio/speech`,
      { model: 'acme/guarded-speech', voice: 'alloy', input: 'say the forbidden words now' },
      auth,
    );
    assert.equal(spoken.status, 403);
    assert.equal(spoken.json.error.type, 'content_filter_error');
    const fine = await client.audio.speech.create({
      model: 'acme/guarded-speech',
      voice: 'alloy',
      input: 'say nice words',
      response_format: 'wav',
    });
    assert.equal(fine.status, 200);
    const prompt = await client.audio.transcriptions
      .create({ model: 'acme/guarded-transcribe', file: await toFile(wavBytes(500), 'a.wav'), prompt: 'forbidden words' })
      .then(
        () => 200,
        (err: { status: number }) => err.status,
      );
    assert.equal(prompt, 403);
  });

  test('the routes are served under /api/v1 too', async () => {
    const res = await fetch(`${gw.origin}/api/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'switchyard/sim-speech', voice: 'alloy', input: 'api', response_format: 'wav' }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    const body = new FormData();
    body.append('file', new File([wavBytes(500)], 'x.wav'));
    body.append('model', 'switchyard/sim-transcribe');
    const t = await fetch(`${gw.origin}/api/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}` },
      body,
    });
    assert.equal(t.status, 200);
    assert.equal(((await t.json()) as { text: string }).text, 'The sim heard 0.5 seconds of audio.');
  });

  test("bad speech input is a 400 in OpenAI's shape naming the parameter", async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const ok = { model: 'switchyard/sim-speech', voice: 'alloy', input: 'x' };
    const cases: [unknown, string][] = [
      [{ model: 'switchyard/sim-speech', voice: 'alloy' }, 'input'],
      [{ ...ok, input: '' }, 'input'],
      [{ ...ok, input: 'a'.repeat(4097) }, 'input'],
      [{ ...ok, input: 42 }, 'input'],
      [{ model: 'switchyard/sim-speech', input: 'x' }, 'voice'],
      [{ ...ok, response_format: 'ogg' }, 'response_format'],
      [{ ...ok, speed: 4.5 }, 'speed'],
      [{ ...ok, speed: 0.1 }, 'speed'],
      [{ ...ok, stream_format: 'sse' }, 'stream_format'],
      [{ ...ok, temperature: 1 }, 'temperature'],
    ];
    for (const [body, param] of cases) {
      const res = await postJson(`${gw.baseUrl}/audio/speech`, body, auth);
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(res.json.error.type, 'invalid_request_error');
      assert.equal(res.json.error.param, param, JSON.stringify(body).slice(0, 80));
    }
  });

  test('bad transcription input: a 400 naming the field; an unreadable file is refused; a file over 25 MB is a 413', async () => {
    const send = async (fill: (f: FormData) => void): Promise<{ status: number; json: any }> => {
      const body = new FormData();
      fill(body);
      const res = await fetch(`${gw.baseUrl}/audio/transcriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}` },
        body,
      });
      return { status: res.status, json: await res.json() };
    };
    const wav = (): File => new File([wavBytes(500)], 'a.wav');
    const cases: [(f: FormData) => void, string, RegExp?][] = [
      [(f) => f.append('model', 'switchyard/sim-transcribe'), 'file'],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', 'not a file');
        },
        'file',
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', new File([Buffer.from('just some text, no audio')], 'a.wav'));
        },
        'file',
        /not an audio file this gateway can measure/,
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', new File([wavBytes(1000).subarray(0, 36)], 'a.wav'));
        },
        'file',
        /wav file's header does not say how long/,
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', wav());
          f.append('response_format', 'docx');
        },
        'response_format',
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', wav());
          f.append('timestamp_granularities[]', 'word');
        },
        'timestamp_granularities[]',
        /verbose_json/,
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', wav());
          f.append('temperature', '2');
        },
        'temperature',
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', wav());
          f.append('stream', 'true');
        },
        'stream',
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', wav());
          f.append('colour', 'blue');
        },
        'colour',
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', new File([wavBytes(500)], `${'a'.repeat(300)}.wav`));
        },
        'file',
        /file name of at most 255/,
      ],
      [
        (f) => {
          f.append('model', 'switchyard/sim-transcribe');
          f.append('file', wav());
          f.append('file', wav());
        },
        'file',
        /exactly one file/,
      ],
    ];
    for (const [fill, param, message] of cases) {
      const res = await send(fill);
      assert.equal(res.status, 400, param);
      assert.equal(res.json.error.type, 'invalid_request_error');
      assert.equal(res.json.error.param, param);
      if (message !== undefined) assert.match(res.json.error.message, message);
    }
    const json = await postJson(
      `${gw.baseUrl}/audio/transcriptions`,
      { model: 'switchyard/sim-transcribe' },
      { authorization: `Bearer ${gw.key}` },
    );
    assert.equal(json.status, 400);
    assert.match(json.json.error.message, /multipart\/form-data/);
    // Translations take no language.
    const translate = new FormData();
    translate.append('model', 'switchyard/sim-transcribe');
    translate.append('file', wav());
    translate.append('language', 'fr');
    const tr = await fetch(`${gw.baseUrl}/audio/translations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}` },
      body: translate,
    });
    assert.equal(tr.status, 400);
    assert.equal(((await tr.json()) as any).error.param, 'language');
    const big = await send((f) => {
      f.append('model', 'switchyard/sim-transcribe');
      f.append('file', new File([wavBytes(820_000)], 'long.wav'));
    });
    assert.equal(big.status, 413);
    assert.match(big.json.error.message, /larger than 25 MB/);
  });

  test('a form of too many parts is refused before it is read; a hand-written form (quoted boundary, a preamble, filename*) is read', async () => {
    const many = new FormData();
    many.append('model', 'switchyard/sim-transcribe');
    many.append('file', new File([wavBytes(500)], 'a.wav'));
    for (let i = 0; i < 300; i++) many.append('prompt', 'p');
    const res = await fetch(`${gw.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}` },
      body: many,
    });
    assert.equal(res.status, 400);
    const err = ((await res.json()) as any).error;
    assert.equal(err.param, 'body');
    assert.match(err.message, /more than 256 parts/);
    const b = 'x-boundary-1';
    const body = Buffer.concat([
      Buffer.from(`a preamble\r\n--${b}\r\nContent-Disposition: form-data; name="model"\r\n\r\nswitchyard/sim-transcribe\r\n`),
      Buffer.from(
        `--${b}\r\nContent-Disposition: form-data; name="file"; filename="x.wav"; filename*=UTF-8''%C3%A9t%C3%A9.wav\r\nContent-Type: audio/wav\r\n\r\n`,
      ),
      wavBytes(1500),
      Buffer.from(`\r\n--${b}\r\nContent-Disposition: form-data; name="response_format"\r\n\r\nverbose_json\r\n--${b}--\r\n`),
    ]);
    const ok = await fetch(`${gw.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': `multipart/form-data; boundary="${b}"` },
      body,
    });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal(((await ok.json()) as { duration: number }).duration, 1.5);
    const cut = await fetch(`${gw.baseUrl}/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': `multipart/form-data; boundary=${b}` },
      body: body.subarray(0, 200),
    });
    assert.equal(cut.status, 400);
    assert.equal(((await cut.json()) as any).error.param, 'body');
  });

  test('a model of another kind is a clear 400 on each audio route, and an audio model on chat', async () => {
    const auth = { authorization: `Bearer ${gw.key}` };
    const chat = await postJson(`${gw.baseUrl}/audio/speech`, { model: 'switchyard/sim-fast', voice: 'alloy', input: 'x' }, auth);
    assert.equal(chat.status, 400);
    assert.equal(chat.json.error.param, 'model');
    assert.match(chat.json.error.message, /chat model/);
    const body = new FormData();
    body.append('file', new File([wavBytes(500)], 'a.wav'));
    body.append('model', 'switchyard/sim-speech');
    const wrong = await fetch(`${gw.baseUrl}/audio/transcriptions`, { method: 'POST', headers: auth, body });
    assert.equal(wrong.status, 400);
    assert.match(((await wrong.json()) as any).error.message, /speech model.*\/v1\/audio\/speech/);
    const onChat = await postJson(
      `${gw.baseUrl}/chat/completions`,
      { model: 'switchyard/sim-transcribe', messages: [{ role: 'user', content: 'x' }] },
      auth,
    );
    assert.equal(onChat.status, 400);
    assert.match(onChat.json.error.message, /transcription model.*\/v1\/audio\/transcriptions/);
  });

  test("GET /v1/models lists the audio models with OpenRouter's modalities and their prices", async () => {
    const all = (await (await fetch(`${gw.baseUrl}/models?output_modalities=all`)).json()) as {
      data: {
        id: string;
        kind: string;
        architecture: { input_modalities: string[]; output_modalities: string[] };
        pricing: Record<string, string>;
      }[];
    };
    const speech = all.data.find((m) => m.id === 'switchyard/sim-speech')!;
    assert.equal(speech.kind, 'speech');
    assert.deepEqual([speech.architecture.input_modalities, speech.architecture.output_modalities], [['text'], ['audio']]);
    assert.equal(speech.pricing.character, '0.00003');
    const hear = all.data.find((m) => m.id === 'switchyard/sim-transcribe')!;
    assert.deepEqual([hear.architecture.input_modalities, hear.architecture.output_modalities], [['audio'], ['text']]);
    assert.equal(hear.pricing.audio_second, '0.0001');
  });

  test('the hold is priced on the duration read from the file: a key that cannot pay for it is refused before any upstream call', async () => {
    const svc = gw.services.accountService;
    // $0.0004 of room: a 4.2 s file bills 5 s ($0.0005), a 3.5 s one 4 s ($0.0004).
    const { key } = await svc.createKey({ accountId: gw.accountId, limitUsd: '0.0004' });
    const keyed = new OpenAI({ apiKey: key, baseURL: gw.baseUrl, maxRetries: 0 });
    const before = upstream.requests.length;
    await assert.rejects(
      keyed.audio.transcriptions.create({ model: 'acme/whisper', file: await toFile(wavBytes(4200), 'long.wav') }),
      (err: { status?: number }) => err.status === 402,
    );
    assert.equal(upstream.requests.length, before, 'the upstream never saw the file');
    const ok = await keyed.audio.transcriptions.create({ model: 'acme/whisper', file: await toFile(wavBytes(3500), 'short.wav') });
    assert.equal(ok.text, emulatorTranscript('short.wav', wavBytes(3500).length, 'transcribe'));
    assert.equal(upstream.requests.length, before + 1);
  });

  test('a header that says the audio is short does not make it cheap: held and charged for what a decoder plays', async () => {
    // 10 s of 16 kHz PCM whose fmt chunk claims ten times the byte rate; 60 MP3 frames whose Xing header says 1.
    const wav = wavBytes(10_000);
    wav.writeUInt32LE(320_000, 28);
    const raw = await client.audio.transcriptions.create({ model: 'acme/whisper', file: await toFile(wav, 'lie.wav') }).withResponse();
    assert.equal((await record(gw, raw.response.headers.get('x-generation-id'))).total_cost, 0.001);
    const mp3 = mp3Bytes(60, { header: 'xing' });
    mp3.writeUInt32BE(1, 4 + 32 + 8);
    const m = await client.audio.transcriptions.create({ model: 'acme/whisper', file: await toFile(mp3, 'lie.mp3') }).withResponse();
    // 60 frames of 26.12 ms = 1.567 s → 2 seconds.
    assert.equal((await record(gw, m.response.headers.get('x-generation-id'))).total_cost, 0.0002);
  });

  test('a balance and a key limit stop speech exactly as they stop chat', async () => {
    await assertBudgetsStopSurface(gw, async (key) => {
      const res = await postJson(
        `${gw.baseUrl}/audio/speech`,
        { model: 'switchyard/sim-speech', voice: 'alloy', input: SENTENCE, response_format: 'wav' },
        { authorization: `Bearer ${key}` },
      );
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });

  test('a balance and a key limit stop transcription exactly as they stop chat', async () => {
    const clip = wavBytes(4200);
    await assertBudgetsStopSurface(gw, async (key) => {
      const body = new FormData();
      body.append('file', new File([clip], 'clip.wav'));
      body.append('model', 'switchyard/sim-transcribe');
      const res = await fetch(`${gw.baseUrl}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body });
      await res.arrayBuffer();
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });

  test('a balance and a key limit stop translation exactly as they stop chat', async () => {
    const clip = wavBytes(4200);
    await assertBudgetsStopSurface(gw, async (key) => {
      const body = new FormData();
      body.append('file', new File([clip], 'clip.wav'));
      body.append('model', 'switchyard/sim-transcribe');
      const res = await fetch(`${gw.origin}/api/v1/audio/translations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body,
      });
      await res.arrayBuffer();
      return { status: res.status, generationId: res.headers.get('x-generation-id') };
    });
  });
});
