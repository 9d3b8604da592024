import type { Category } from '../contract/index.js';

/** A row of the categories table, as both backends return it. */
export interface CategoryRow {
  id: number;
  name: string;
  description: string | null;
}

/** A stored category as the API shows it: a missing description is left out, not null. */
export function toCategory(row: CategoryRow): Category {
  return row.description === null
    ? { id: row.id, name: row.name }
    : { id: row.id, name: row.name, description: row.description };
}
