/**
 * A schema change, applied once, in order, in its own transaction. Never edit one that has shipped. Both
 * backends hold the same versions, each in its own dialect.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
