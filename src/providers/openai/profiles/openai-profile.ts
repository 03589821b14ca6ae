import type { ReasoningEffort, RequestParameter } from '../../../canonical/request.ts';
import type { ModelKind } from '../../../canonical/task.ts';
import { supportedParameters, type ParameterTable } from '../../parameter-rules.ts';

// What differs between OpenAI-compatible vendors: where the request goes, how it
// authenticates, how each parameter travels (see providers/parameter-rules.ts), which extra
// fields pass through, which input content its chat API takes, and a few wire quirks. One
// adapter reads these; no vendor has code of its own.

/** User content besides text: images (`image_url`), files (`file`), audio (`input_audio`). */
export type InputKind = 'image' | 'file' | 'audio';

export interface OpenAIProfile {
  readonly name: string;
  /** Shown in docs/providers.md. */
  readonly vendor: string;
  readonly rules: ParameterTable;
  /** Derived from `rules`: what this vendor carries or the gateway honours. */
  readonly supported: ReadonlySet<RequestParameter>;
  /** `req.extra` keys copied into the body untouched (the spec's provider-specific parameters). */
  readonly passThrough: ReadonlySet<string>;
  /**
   * The input kinds this vendor's chat API takes. A request carrying another kind is refused
   * before anything is sent (`unsupported_content`), so routing moves on to an endpoint
   * that can carry it.
   */
  readonly input: ReadonlySet<InputKind>;
  /** Kinds taken too when the provider's `options.api_version` is a preview one (Azure). */
  readonly previewInput?: ReadonlySet<InputKind>;
  /** `bearer`: `Authorization: Bearer <key>`; `api-key`: Azure's `api-key: <key>` header. */
  readonly auth: 'bearer' | 'api-key';
  /**
   * `chat`: `{base}/chat/completions`. `azure-deployment`:
   * `{base}/openai/deployments/{upstream model}/chat/completions?api-version={options.api_version}`.
   */
  readonly route: 'chat' | 'azure-deployment';
  /** Ask for `stream_options.include_usage`; false for servers that report usage unasked and refuse unknown fields. */
  readonly streamOptions: boolean;
  /** The vendor's value for each reasoning effort, when it differs; `null` sends no effort. */
  readonly effortValues?: Readonly<Partial<Record<ReasoningEffort, string | null>>>;
  /** A boolean body field that asks for the reasoning text (`!reasoning.exclude`), sent with any reasoning config. */
  readonly includeReasoningField?: string;
  /**
   * The task endpoints this vendor serves besides chat, each at `{base}/embeddings`,
   * `{base}/images/generations` (`/images/edits`), `{base}/audio/speech`,
   * `{base}/audio/transcriptions` (`/audio/translations`); Azure under its deployment path.
   */
  readonly tasks: ReadonlySet<ModelKind>;
}

export type OpenAIProfileInput = Omit<OpenAIProfile, 'supported' | 'passThrough' | 'input' | 'previewInput' | 'tasks'> & {
  readonly passThrough?: readonly string[];
  readonly tasks: readonly ModelKind[];
  readonly input: readonly InputKind[];
  readonly previewInput?: readonly InputKind[];
};

export function defineProfile(input: OpenAIProfileInput): OpenAIProfile {
  const { previewInput, ...rest } = input;
  const profile: OpenAIProfile = {
    ...rest,
    supported: supportedParameters(input.rules),
    passThrough: new Set(input.passThrough ?? []),
    input: new Set(input.input),
    tasks: new Set(input.tasks),
  };
  return previewInput === undefined ? profile : { ...profile, previewInput: new Set(previewInput) };
}
