// The JSON text of a tool's parameter schema (or a `json_schema` response format's schema),
// serialized once per request and shared by everything that reads it: the token estimate,
// the prompt bounds of the credit hold, moderation, sticky routing's prompt-cache keys and
// the upstream body (issue 27, "Work done once per request": Claude Code's first request
// carries ~20 tools, and each pass over their schemas cost more than the rest of a request).
//
// Keyed by the schema object itself, which a decoded request never changes: a request built
// anew has new schema objects and so new entries; entries go with their request (WeakMap).

const texts = new WeakMap<object, string>();

/** `JSON.stringify(schema)`, computed on first use for this schema object. */
export function schemaJson(schema: Record<string, unknown>): string {
  let text = texts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    texts.set(schema, text);
  }
  return text;
}
