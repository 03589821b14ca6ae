/** Readable names of the account tiers (limits per tier arrive with the rate-limit issue). */
const TIER_NAMES: Record<string, string> = {
  free: 'Free',
  tier2: 'Tier 2',
  enterprise: 'Enterprise',
};

export const KNOWN_TIERS = Object.keys(TIER_NAMES);

export function tierName(tier: string): string {
  return TIER_NAMES[tier] ?? tier;
}
