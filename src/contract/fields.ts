import { type TSchema, Type } from '@sinclair/typebox';
import { DATE_TIME_PATTERN } from './keys.js';

/** A time the admin API answers with: RFC 3339 in UTC. */
export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2027-01-31T00:00:00Z'] });

/** A time a client sends: RFC 3339 with its offset, checked at the edge (Ajv has no date-time format here). */
export const TimestampInput = (description: string) =>
  Type.String({ ...Timestamp(description), pattern: DATE_TIME_PATTERN, maxLength: 40 });

/** A value, or null. */
export const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Names for people (of keys, tokens): 1 to 100 characters; control characters are refused with a message of their own. */
export const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A name for people, 1 to 100 characters.',
});
