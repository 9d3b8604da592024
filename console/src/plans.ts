import type { PlanName, Scope } from './types.js';

// Records keyed by the contract's unions: the compiler demands an entry for every plan and every scope, so a
// plan or scope added to the API cannot be missing from the forms.

export const PLANS: Record<PlanName, string> = {
  free: 'Free',
  pro: 'Pro',
  business: 'Business',
  enterprise: 'Enterprise (its own limits)',
};

export const SCOPES: Record<Scope, string> = {
  'categories:read': 'Read categories',
  'categories:write': 'Write categories',
  'pets:read': 'Read pets',
  'pets:write': 'Write pets',
  'orders:read': 'Read orders',
  'orders:write': 'Write orders',
};

export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];
