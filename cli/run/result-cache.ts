import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, stat, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import type { AuditArticle } from "../../shared/audit.js";
import { writeFileAtomic } from "../../shared/fs.js";
import type { ToolDefinition } from "../../shared/model/types.js";
import {
  RESULT_ENTRY_FORMAT as ENTRY_FORMAT,
  ResultCacheEntrySchema as EntrySchema,
} from "../../shared/result-cache-entry.js";

/** Where `impact run` keeps article results, relative to the repository root. */
export const RESULT_CACHE_DIR = ".impact/cache/results";
/** The cache's size bound; past it the least recently used entries go first. */
export const RESULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Everything the model's answer for one article depends on; any change is another key. */
export interface ResultKeyParts {
  impactVersion: string;
  model: string;
  systemPrompt: string;
  tools: readonly ToolDefinition[];
  /** The article's exact text. */
  article: string;
  /** The first user message: the article prompt with the relevant hunks, reasons and outline filled in. */
  firstMessage: string;
  /** The style instructions' paths and hashes (instructionsKey) and the after-edit style check's key. */
  instructions: string;
}

/** sha256 (hex) over the parts, each length-prefixed so no two different sets of parts can collide by concatenation. */
export function resultKey(parts: ResultKeyParts): string {
  const hash = createHash("sha256");
  const fields = [
    ENTRY_FORMAT,
    parts.impactVersion,
    parts.model,
    parts.systemPrompt,
    JSON.stringify(parts.tools),
    parts.article,
    parts.firstMessage,
    parts.instructions,
  ];
  for (const field of fields) {
    hash.update(`${Buffer.byteLength(field)}:`);
    hash.update(field);
  }
  return hash.digest("hex");
}

/** The runner's view of the cache. */
export interface ResultCache {
  get(key: string): Promise<AuditArticle[] | undefined>;
  put(key: string, articles: readonly AuditArticle[]): Promise<void>;
}

export interface ResultCacheFolderOptions {
  dir: string;
  maxBytes?: number;
  /** Applied to every result before it is written (the audit's own secret redaction). */
  redact: (article: AuditArticle) => AuditArticle;
  /** A corrupt or foreign entry, or a write that failed: said once each, never fatal. */
  warn: (message: string) => void;
}

/**
 * One small JSON file per key in a folder. A read marks the entry as recently used (its
 * mtime); `prune` then deletes the least recently used entries past the size bound. An entry
 * that does not parse, fails the schema, or holds another key is ignored with a warning and
 * overwritten by the next result for that key: never trusted.
 */
export class ResultCacheFolder implements ResultCache {
  readonly #options: ResultCacheFolderOptions;

  constructor(options: ResultCacheFolderOptions) {
    this.#options = options;
  }

  #path(key: string): string {
    return join(this.#options.dir, `${key}.json`);
  }

  async get(key: string): Promise<AuditArticle[] | undefined> {
    const path = this.#path(key);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.#options.warn(
          `result cache: cannot read ${path} (${(error as Error).message}); running the article`,
        );
      }
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#options.warn(`result cache: ignoring ${path}: not valid JSON`);
      return undefined;
    }
    const parsed = EntrySchema.safeParse(json);
    if (!parsed.success || parsed.data.key !== key) {
      this.#options.warn(`result cache: ignoring ${path}: not an Impact result for this key`);
      return undefined;
    }
    const now = new Date();
    await utimes(path, now, now).catch(() => undefined);
    return parsed.data.articles;
  }

  async put(key: string, articles: readonly AuditArticle[]): Promise<void> {
    const entry = { format: ENTRY_FORMAT, key, articles: articles.map(this.#options.redact) };
    try {
      await mkdir(this.#options.dir, { recursive: true });
      await writeFileAtomic(this.#path(key), `${JSON.stringify(entry)}\n`);
    } catch (error) {
      this.#options.warn(`result cache: cannot write ${this.#path(key)} (${(error as Error).message})`);
    }
  }

  /** Deletes the least recently used entries until the folder is within its size bound. */
  async prune(): Promise<void> {
    const maxBytes = this.#options.maxBytes ?? RESULT_CACHE_MAX_BYTES;
    let names: string[];
    try {
      names = (await readdir(this.#options.dir)).filter((name) => name.endsWith(".json"));
    } catch {
      return;
    }
    const entries = (
      await Promise.all(
        names.map(async (name) => {
          const path = join(this.#options.dir, name);
          const info = await stat(path).catch(() => undefined);
          return info ? { path, size: info.size, used: info.mtimeMs } : undefined;
        }),
      )
    ).filter((entry) => entry !== undefined);
    let total = entries.reduce((sum, entry) => sum + entry.size, 0);
    for (const entry of entries.sort((a, b) => a.used - b.used)) {
      if (total <= maxBytes) break;
      await unlink(entry.path).catch(() => undefined);
      total -= entry.size;
    }
  }
}
