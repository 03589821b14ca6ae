import type { Readable } from 'node:stream';

/**
 * A whole body as text, read with the stream's events rather than an async iterator (which
 * costs a promise, a tick and an end-of-stream watcher per chunk on every non-streamed
 * answer). Rejects as the iterator would: on the stream's error, or when it closes before
 * its end (the connection broke, or our abort destroyed it).
 */
export function readAllText(body: Readable, onFirstChunk: () => void = () => {}): Promise<string> {
  // Destroyed before it was read (an abort between the headers and here): its events are past.
  if (body.destroyed) return Promise.reject(body.errored ?? prematureClose());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer): void => {
      if (chunks.length === 0) onFirstChunk();
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onClose = (): void => {
      cleanup();
      reject(prematureClose());
    };
    const cleanup = (): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    // \`on\`, not \`once\`: each handler removes all four first, and \`once\` would wrap each in a closure of its own.
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/** The error a stream's async iterator throws when the stream closes before its end. */
export function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
