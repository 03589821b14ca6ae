// What a model can do: the vocabulary the catalog, the config and the planner share.

export type Capability =
  | 'text'
  | 'tool_calling'
  | 'json_mode'
  | 'structured_outputs'
  | 'streaming'
  | 'multimodal'
  | 'reasoning'
  | 'audio_input'
  | 'audio_output'
  | 'image_output'
  | 'pdf_input';

/** Every capability name, for validating config and for documentation. */
export const CAPABILITIES = [
  'text',
  'tool_calling',
  'json_mode',
  'structured_outputs',
  'streaming',
  'multimodal',
  'reasoning',
  'audio_input',
  'audio_output',
  'image_output',
  'pdf_input',
] as const satisfies readonly Capability[];

// Fails to compile when a Capability is added to the type but not to the list above.
type Missing = Exclude<Capability, (typeof CAPABILITIES)[number]>;
const listIsComplete: [Missing] extends [never] ? true : never = true;
void listIsComplete;

const CAPABILITY_SET: ReadonlySet<string> = new Set(CAPABILITIES);

export function isCapability(value: string): value is Capability {
  return CAPABILITY_SET.has(value);
}
