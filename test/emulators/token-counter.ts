// Usage as OpenAI counts it, with a real encoding, for emulators that must charge what a
// real upstream would (`countWith`): the hold-bound tests reproduce scripts that
// tokenize far worse than four characters a token.

export type Counter = (text: string) => number;

/** Tokens of a text in `encoding` (special-token text counted as plain text). */
export async function loadCounter(encoding: 'o200k_base' | 'cl100k_base'): Promise<Counter> {
  const enc = (await import(`gpt-tokenizer/encoding/${encoding}`)) as { countTokens: (text: string, o: object) => number };
  const plain = { allowedSpecial: new Set(), disallowedSpecial: new Set() };
  return (text) => enc.countTokens(text, plain);
}

/** OpenAI's chat accounting: 3 tokens to prime the reply, 4 per message, plus its text. */
export function countPrompt(messages: any[], count: Counter): number {
  let tokens = 3;
  for (const m of messages) {
    tokens += 4;
    if (typeof m?.content === 'string') tokens += count(m.content);
    else if (Array.isArray(m?.content)) for (const part of m.content) if (typeof part?.text === 'string') tokens += count(part.text);
  }
  return tokens;
}
