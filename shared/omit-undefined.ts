/** The keys of T whose type includes undefined. */
type MaybeUndefinedKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

/** T with every key that may be undefined made optional and undefined-free. */
type OmitUndefined<T> = { [K in Exclude<keyof T, MaybeUndefinedKeys<T>>]: T[K] } & {
  [K in MaybeUndefinedKeys<T>]?: Exclude<T[K], undefined>;
};

/**
 * A copy of `value` without its undefined-valued keys, for data that is compared or shown as
 * an object (a plan's reasons, the audit), where `{ line: undefined }` and `{}` differ. Option
 * bags do not need it: with exactOptionalPropertyTypes they declare `x?: T | undefined`.
 */
export function omitUndefined<T extends object>(value: T): OmitUndefined<T> {
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) result[key] = item;
  return result as OmitUndefined<T>;
}
