import { createHash } from "node:crypto";

/** The article hash: sha256 of the exact bytes, first 16 hex characters. */
export function contentHash(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex").slice(0, 16);
}

/**
 * A cache key: sha256 (hex) over the fields, each length-prefixed so no two different lists
 * of fields can collide by concatenation.
 */
export function fieldsHash(fields: readonly string[]): string {
  const hash = createHash("sha256");
  for (const field of fields) {
    hash.update(`${Buffer.byteLength(field)}:`);
    hash.update(field);
  }
  return hash.digest("hex");
}
