import { createHash } from "node:crypto";

/** The article hash: sha256 of the exact bytes, first 16 hex characters. */
export function contentHash(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex").slice(0, 16);
}
