// Reads an SSE response as it arrives, so a test can act between two events (send a
// signal once the stream has begun) and then read the rest.

export interface SseReader {
  /** Everything received so far. */
  readonly text: string;
  /** Resolves once the text received so far matches `pattern`; rejects if the stream ends first. */
  waitFor(pattern: RegExp): Promise<void>;
  /** Resolves with the whole text once the stream ends (normally or cut). */
  done: Promise<string>;
}

export function readSse(body: ReadableStream<Uint8Array>): SseReader {
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  const waiters: Array<() => void> = [];
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  const done = (async () => {
    const reader = body.getReader();
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        text += decoder.decode(value, { stream: true });
        wake();
      }
    } catch {
      // Cut by the server: what came is what there is.
    }
    ended = true;
    wake();
    return text;
  })();
  return {
    get text() {
      return text;
    },
    done,
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(text)) {
            waiters.splice(waiters.indexOf(check), 1);
            resolve();
          } else if (ended) {
            waiters.splice(waiters.indexOf(check), 1);
            reject(new Error(`the stream ended before ${pattern}:\n${text}`));
          }
        };
        waiters.push(check);
        check();
      });
    },
  };
}

/** The JSON payloads of an SSE text's data lines (`[DONE]` as is). */
export function ssePayloads(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}
