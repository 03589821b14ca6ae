/**
 * An SSE event's data as the JSON object a stream decoder expects, or the reason it is not
 * one (the decoder fails the stream with it): malformed JSON, or JSON that is no object.
 */
export function parseEventObject(data: string): { value: object } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { problem: 'upstream sent malformed JSON in the stream' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: 'upstream sent an invalid stream event' };
  }
  return { value: parsed };
}
