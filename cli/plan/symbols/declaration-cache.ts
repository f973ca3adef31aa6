import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../../../shared/fs.js";
import { MAX_CACHED_DECLARATION_FILES } from "../../../shared/limits.js";
import { ignoreOutputDir, OUTPUT_DIR } from "../../audit/files.js";
import { VERSION } from "../../version.js";
import type { Declaration } from "./declarations.js";
import { languageOf } from "./extract-symbols.js";

/**
 * The declaration cache: the compact declarations (declarations.ts `compactDeclarations`)
 * of each code file version a plan parsed, keyed by its blob sha and language. What a file
 * version declares never changes, so a plan parses only the versions no plan before it
 * parsed. The file is keyed by Impact's version, this format and the parser used (oxc, or
 * the TypeScript compiler in the single executable), and is ignored whole when any differs
 * or any entry is malformed.
 */
export const DECLARATION_CACHE_FILE = join(OUTPUT_DIR, "cache", "declarations", "index.json");

/** Bumped whenever what an entry holds changes (a new Declaration field, another digest). */
const FORMAT = 1;

interface CacheFile {
  format: number;
  version: string;
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

/** The declaration cache of a repository; empty when there is none or it cannot be trusted. */
export async function loadDeclarationCache(repoRoot: string): Promise<DeclarationCache> {
  const stored = await loadEntries(join(repoRoot, DECLARATION_CACHE_FILE));
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
      if (!added) return;
      const entries: Record<string, Declaration[]> = Object.fromEntries(used);
      let count = used.size;
      for (const [key, declarations] of stored) {
        if (count >= MAX_CACHED_DECLARATION_FILES) break;
        if (key in entries) continue;
        entries[key] = declarations;
        count += 1;
      }
      const file: CacheFile = { format: FORMAT, version: VERSION, parser: parserName(), entries };
      try {
        await ignoreOutputDir(repoRoot);
        const path = join(repoRoot, DECLARATION_CACHE_FILE);
        await mkdir(dirname(path), { recursive: true });
        await writeFileAtomic(path, JSON.stringify(file));
      } catch {
        // Read-only checkout: the next plan parses these file versions again.
      }
    },
  };
}

/** Which parser read TS/JS: the single executable carries the compiler instead of oxc (extract-symbols.ts loadParsers). */
function parserName(): string {
  return process.versions.bun ? "typescript" : "oxc";
}

async function loadEntries(path: string): Promise<Map<string, Declaration[]>> {
  const entries = new Map<string, Declaration[]>();
  let file: CacheFile;
  try {
    file = JSON.parse(await readFile(path, "utf8")) as CacheFile;
  } catch {
    return entries;
  }
  if (
    typeof file !== "object" ||
    file === null ||
    file.format !== FORMAT ||
    file.version !== VERSION ||
    file.parser !== parserName() ||
    typeof file.entries !== "object" ||
    file.entries === null
  )
    return entries;
  for (const [key, declarations] of Object.entries(file.entries)) {
    if (!Array.isArray(declarations) || !declarations.every(isDeclaration)) return new Map();
    entries.set(key, declarations);
  }
  return entries;
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
