import { GatewayError } from '../errors/gateway-error.ts';

// Request options that make the upstream charge more than the tokens the gateway prices:
// OpenAI's `service_tier` (priority costs up to 2x; flex and scale bill otherwise), web
// search (`web_search_options`, OpenRouter's `plugins: [{id: "web"}]`, billed per search or
// per result). The gateway forwards them only to providers whose operator enabled them
// (`unpriced_options` in the provider's config), accepting their extra cost; elsewhere the
// request is refused with a 400 naming the option, rather than silently served without it
// (a client asking for web search or priority wants to know it did not get them).

export const UNPRICED_OPTIONS = ['service_tier', 'web_search_options', 'plugins'] as const;
export type UnpricedOption = (typeof UNPRICED_OPTIONS)[number];

/** Why sending `key: value` costs extra upstream, or null when it does not. */
export function extraCostOf(key: string, value: unknown): string | null {
  switch (key) {
    case 'service_tier':
      return value === 'auto' || value === 'default' || value === null
        ? null
        : `service_tier "${typeof value === 'string' ? value : JSON.stringify(value)}" is billed at other rates than the standard tier`;
    case 'web_search_options':
      return 'web search is billed per search';
    case 'plugins':
      return Array.isArray(value) && value.some((p) => (p as { id?: unknown } | null)?.id === 'web')
        ? 'the web plugin is billed per search result'
        : null;
    default:
      return null;
  }
}

/** Throws the 400 for an option that costs extra when the provider's operator did not enable it. */
export function checkUnpricedOption(key: string, value: unknown, provider: { id: string; unpricedOptions?: ReadonlySet<string> }): void {
  const why = extraCostOf(key, value);
  if (why === null || provider.unpricedOptions?.has(key) === true) return;
  throw new GatewayError(
    'option_not_enabled',
    `The option "${key}" costs extra at the provider (${why}), which this gateway does not price; its operator has not enabled it for "${provider.id}". Remove "${key}" from the request.`,
    {
      param: key,
    },
  );
}
