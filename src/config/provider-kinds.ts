/**
 * Adapter kinds a config may name. A kind listed here whose adapter is not registered
 * (yet) is not a config error: the catalog drops its endpoints with a startup warning.
 * A kind not listed here is a typo, and loading fails.
 */
export const PROVIDER_KINDS = ['openai', 'anthropic', 'google', 'bedrock', 'vertex', 'sim'] as const;

/** An adapter kind: a literal union, so a new kind fails to compile until every place that branches on kinds handles it. */
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
