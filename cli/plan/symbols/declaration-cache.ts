import { MAX_CACHED_DECLARATION_FILES } from "../../../shared/limits.js";
import type { CacheSpec, CacheStore } from "../../workdir/cache-store.js";
import type { Declaration } from "./declarations.js";
import { languageOf } from "./extract-symbols.js";

/**
 * The declaration cache: the compact declarations (declarations.ts `compactDeclarations`)
 * of each code file version a plan parsed, keyed by its blob sha and language. What a file
 * version declares never changes, so a plan parses only the versions no plan before it
 * parsed. The file is one entry of the workdir's `declarations` cache (cli/workdir/), keyed
 * by Impact's version and this format there and by the parser used (oxc, or the TypeScript
 * compiler in the single executable) here; it is ignored whole when any differs, this
 * machine did not write it, or any entry is malformed.
 */
export const DECLARATION_CACHE: CacheSpec = {
  kind: "declarations",
  // Bumped whenever what an entry holds changes (a new Declaration field, another digest).
  format: 5,
  names: /^index\.json$/,
};
const ENTRY = "index.json";

interface CacheFile {
  parser: string;
  entries: Record<string, Declaration[]>;
}

/** The stored declarations, by cacheKey; new entries are added with `remember` and written with `save`. */
export interface DeclarationCache {
  /** Whether the cache holds `key`, without counting it as used. */
  peek(key: string): boolean;
  get(key: string): Declaration[] | undefined;
  remember(key: string, declarations: Declaration[]): void;
  /** Writes the cache when anything was added: this plan's entries first, then older ones up to the cap. */
  save(): Promise<void>;
}

/** The key of a file version: its blob sha and the language its path is read as; undefined when there is none. */
export function cacheKey(path: string, sha: string | undefined): string | undefined {
  const language = languageOf(path);
  return sha === undefined || language === undefined ? undefined : `${sha}:${language}`;
}

/** The declaration cache kept in `store`; empty when there is none (or no store) or it cannot be trusted. */
export async function loadDeclarationCache(store: CacheStore | undefined): Promise<DeclarationCache> {
  const stored = store ? await loadEntries(store) : new Map<string, Declaration[]>();
  const used = new Map<string, Declaration[]>();
  let added = false;
  return {
    peek: (key) => stored.has(key),
    get(key) {
      const found = stored.get(key);
      if (found) used.set(key, found);
      return found;
    },
    remember(key, declarations) {
      used.set(key, declarations);
      added = true;
    },
    async save() {
      if (!added || !store) return;
      const entries: Record<string, Declaration[]> = Object.fromEntries(used);
      let count = used.size;
      for (const [key, declarations] of stored) {
        if (count >= MAX_CACHED_DECLARATION_FILES) break;
        if (key in entries) continue;
        entries[key] = declarations;
        count += 1;
      }
      const file: CacheFile = { parser: parserName(), entries };
      await store.put(ENTRY, JSON.stringify(file));
    },
  };
}

/** Which parser read TS/JS: the single executable carries the compiler instead of oxc (extract-symbols.ts loadParsers). */
function parserName(): string {
  return process.versions.bun ? "typescript" : "oxc";
}

async function loadEntries(store: CacheStore): Promise<Map<string, Declaration[]>> {
  const entries = new Map<string, Declaration[]>();
  // Another parser's or a malformed file: read again from the sources, silently.
  const file = await store.getJson(
    ENTRY,
    (json) => (isCacheFile(json) ? json : undefined),
    () => undefined,
  );
  if (!file) return entries;
  for (const [key, declarations] of Object.entries(file.entries)) {
    if (!Array.isArray(declarations) || !declarations.every(isDeclaration)) return new Map();
    entries.set(key, declarations);
  }
  return entries;
}

/** A cache file this parser wrote: its entries are checked one by one after. */
function isCacheFile(value: unknown): value is CacheFile {
  if (typeof value !== "object" || value === null) return false;
  const file = value as Record<string, unknown>;
  return file.parser === parserName() && typeof file.entries === "object" && file.entries !== null;
}

function isDeclaration(value: unknown): value is Declaration {
  if (typeof value !== "object" || value === null) return false;
  const declaration = value as Record<string, unknown>;
  return (
    typeof declaration.name === "string" &&
    typeof declaration.kind === "string" &&
    typeof declaration.path === "string" &&
    Number.isInteger(declaration.line) &&
    Number.isInteger(declaration.startLine) &&
    Number.isInteger(declaration.endLine) &&
    typeof declaration.signature === "string" &&
    typeof declaration.body === "string" &&
    (declaration.hidden === undefined || typeof declaration.hidden === "boolean") &&
    (declaration.parent === undefined || typeof declaration.parent === "string") &&
    (declaration.doc === undefined || typeof declaration.doc === "string")
  );
}
