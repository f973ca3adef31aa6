import { z } from "zod";
import { AuditArticleSchema } from "./audit.js";

/**
 * One entry of the result cache, as `impact run` writes it (`<key>.json` in its cache
 * folder, inside the sealed envelope of shared/state-entry.ts) and as the PR bot keeps it in
 * its state store. The format marks an entry as ours and of this layout; anything else is
 * foreign and never trusted.
 */
export const RESULT_ENTRY_FORMAT = "impact-result/2";

/** A cache key: the sha256 (hex) of everything the article's result depends on. */
export const RESULT_KEY_PATTERN = /^[0-9a-f]{64}$/;

export const ResultCacheEntrySchema = z.object({
  format: z.literal(RESULT_ENTRY_FORMAT),
  key: z.string(),
  /** The article's own result first, then the articles its loop created. */
  articles: z.array(AuditArticleSchema).min(1),
  /** Each file the article's loop read or cited as evidence, with its content's hash then: checked before reuse. */
  reads: z.record(z.string(), z.string()),
});
