/** The client dialect a request arrived in (front/<dialect>/), as generation records name it. */
export type DialectName = 'chat' | 'messages' | 'responses' | 'embeddings' | 'images' | 'speech' | 'transcriptions' | 'gemini';

/** Every dialect name (labels of metrics are bound once per name). */
export const DIALECT_NAMES = [
  'chat',
  'messages',
  'responses',
  'embeddings',
  'images',
  'speech',
  'transcriptions',
  'gemini',
] as const satisfies readonly DialectName[];

type Missing = Exclude<DialectName, (typeof DIALECT_NAMES)[number]>;
const listIsComplete: [Missing] extends [never] ? true : never = true;
void listIsComplete;
