/**
 * Adapter kinds a config may name. A kind listed here whose adapter is not registered
 * (yet) is not a config error: the catalog drops its endpoints with a startup warning.
 * A kind not listed here is a typo, and loading fails.
 */
export const PROVIDER_KINDS: readonly string[] = ['openai', 'anthropic', 'google', 'bedrock', 'vertex', 'sim'];
