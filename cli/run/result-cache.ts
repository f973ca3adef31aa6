import type { AuditArticle } from "../../shared/audit.js";
import type { ImpactConfig } from "../../shared/config.js";
import { fieldsHash } from "../../shared/hash.js";
import type { ToolDefinition } from "../../shared/model/types.js";
import {
  RESULT_ENTRY_FORMAT as ENTRY_FORMAT,
  ResultCacheEntrySchema as EntrySchema,
} from "../../shared/result-cache-entry.js";
import type { CacheSpec, CacheStore } from "../workdir/cache-store.js";

/** The cache's size bound; past it the least recently used entries go first. */
const RESULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** The result cache in the workdir (`.impact/cache/results/<key>.json`) or in `--cache-dir`. */
export const RESULT_CACHE: CacheSpec = {
  kind: "results",
  format: 2,
  names: /^[0-9a-f]{64}\.json$/,
  bounds: { maxBytes: RESULT_CACHE_MAX_BYTES },
};

/** Everything the model's answer for one article depends on; any change is another key. */
export interface ResultKeyParts {
  impactVersion: string;
  model: string;
  /** Where the calls go: the base URL or the router (endpointIdentity), never a key. */
  endpoint: string;
  systemPrompt: string;
  tools: readonly ToolDefinition[];
  /** The config as it shapes reads, checks and the answer (answerConfig). */
  config: string;
  /** The article's exact text. */
  article: string;
  /** The first user message: the article prompt with the relevant hunks, reasons and outline filled in. */
  firstMessage: string;
  /** The style instructions' paths and hashes (instructionsKey) and the after-edit style check's key. */
  instructions: string;
}

/** sha256 (hex) over the parts, each length-prefixed (fieldsHash). */
export function resultKey(parts: ResultKeyParts): string {
  return fieldsHash([
    ENTRY_FORMAT,
    parts.impactVersion,
    parts.model,
    parts.endpoint,
    parts.systemPrompt,
    JSON.stringify(parts.tools),
    parts.config,
    parts.article,
    parts.firstMessage,
    parts.instructions,
  ]);
}

/**
 * Config keys that cannot change what the model answers for an article: which articles run
 * and how they are scheduled or priced. Everything else (deny, readIgnored, templates,
 * limits, docs and ignore globs, mappings, and any key added later) is part of the key, so
 * a new setting errs on the side of running the article again.
 */
const KEYLESS_CONFIG = new Set([
  "$schema",
  "minScore",
  "model",
  "concurrency",
  "maxTurns",
  "prices",
  "judge",
]);

/** The config's part of a result key: every key but KEYLESS_CONFIG, as stable JSON. */
export function answerConfig(config: ImpactConfig): string {
  const kept = Object.entries(config)
    .filter(([name, value]) => !KEYLESS_CONFIG.has(name) && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(kept);
}

/** The endpoint's identity in a key: a base URL without user or password, or the router's URL. */
export function endpointIdentity(endpoint: {
  baseUrl?: string | undefined;
  router?: string | undefined;
}): string {
  if (endpoint.router) return `router ${withoutCredentials(endpoint.router)}`;
  return endpoint.baseUrl ? `api ${withoutCredentials(endpoint.baseUrl)}` : "";
}

function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  parsed.username = "";
  parsed.password = "";
  return parsed.toString().replace(/\/$/, "");
}

/** The hash of a file as the loop would see it now (ArticleSession.fileHash). */
export type FileHash = (path: string) => Promise<string>;

/** The runner's view of the cache. */
export interface ResultCache {
  /**
   * The stored result for `key`, when every file its loop read or cited still has the hash
   * it had then (checked with `fileHash`; without it, only a result that read nothing).
   */
  get(key: string, fileHash?: FileHash): Promise<AuditArticle[] | undefined>;
  /** Stores a result with the files its loop read or cited and their hashes. */
  put(key: string, articles: readonly AuditArticle[], reads?: ReadonlyMap<string, string>): Promise<void>;
}

export interface ResultCacheOptions {
  store: CacheStore;
  /** Applied to every result before it is written (the audit's own secret redaction). */
  redact: (article: AuditArticle) => AuditArticle;
  /** An entry that is sealed but not an Impact result for its key: said once each, never fatal. */
  warn: (message: string) => void;
}

/**
 * The result cache over the workdir's cache helper: one sealed JSON entry per key. An entry
 * that fails its MAC is absent; one that is sealed but does not parse, fails the schema or
 * holds another key is ignored with a warning; one whose files changed is run again. The
 * next result for the key replaces any of them.
 */
export class ResultCacheFolder implements ResultCache {
  readonly #options: ResultCacheOptions;

  constructor(options: ResultCacheOptions) {
    this.#options = options;
  }

  async get(key: string, fileHash?: FileHash): Promise<AuditArticle[] | undefined> {
    const name = `${key}.json`;
    const entry = await this.#options.store.getJson(
      name,
      (json) => {
        const parsed = EntrySchema.safeParse(json);
        return parsed.success && parsed.data.key === key ? parsed.data : undefined;
      },
      () => this.#options.warn(`result cache: ignoring ${name}: not an Impact result for this key`),
    );
    if (!entry) return undefined;
    for (const [path, hash] of Object.entries(entry.reads)) {
      if (!fileHash || (await fileHash(path)) !== hash) return undefined;
    }
    return entry.articles;
  }

  async put(
    key: string,
    articles: readonly AuditArticle[],
    reads?: ReadonlyMap<string, string>,
  ): Promise<void> {
    const entry = {
      format: ENTRY_FORMAT,
      key,
      articles: articles.map(this.#options.redact),
      reads: Object.fromEntries([...(reads ?? [])].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    await this.#options.store.put(`${key}.json`, `${JSON.stringify(entry)}\n`);
  }

  prune(): Promise<void> {
    return this.#options.store.prune();
  }
}
