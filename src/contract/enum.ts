import { type SchemaOptions, Type } from '@sinclair/typebox';

/**
 * A string that is one of `values`, written as JSON Schema's `enum` (not TypeBox's union of constants): the
 * document lists the values in one place, and a refusal can name them all.
 */
export function stringEnum<T extends string>(values: readonly T[], options: SchemaOptions = {}) {
  return Type.Unsafe<T>({ ...options, type: 'string', enum: [...values] });
}
