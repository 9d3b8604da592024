import { type Role, roleAllows } from '../contract/index.js';

/** Which role each group of the identity provider gives (`OIDC_ROLES`): a group without one gives none. */
export type RoleMapping = ReadonlyMap<string, Role>;

/** The groups a claim names: a list of strings, or one string; anything else names none. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  if (Array.isArray(claim)) return claim.filter((group): group is string => typeof group === 'string');
  return [];
}

/** The highest role any of a person's groups gives; undefined when none of them gives one. */
export function roleOfGroups(groups: readonly string[], mapping: RoleMapping): Role | undefined {
  let best: Role | undefined;
  for (const group of groups) {
    const role = mapping.get(group);
    if (role !== undefined && (best === undefined || !roleAllows(best, role))) best = role;
  }
  return best;
}
