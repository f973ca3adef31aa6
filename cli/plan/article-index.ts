import { closeSync, constants, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
import { join } from "node:path";
import { type ListedFile, readBlobs } from "../git/repository.js";
import type { CacheSpec, CacheStore } from "../workdir/cache-store.js";
import { attentionOf, bodyOf } from "./detect/article-text.js";
import { fingerprint, termKey } from "./matcher.js";

/**
 * The persistent article index: for each article's blob, what detection needs to know
 * before it reads the article again (its fingerprint, and whether its frontmatter names
 * `attention`). A plan over mostly unchanged docs then opens only the articles whose
 * fingerprint holds a term of the change, instead of every article.
 *
 * Entries are keyed by blob sha (a changed article is a new blob) and by where the bytes
 * came from (the working tree or git's object store: a checkout filter may make them
 * differ); the file is one entry of the workdir's `articles` cache (cli/workdir/), ignored
 * whole when Impact's version or this format differs or this machine did not write it.
 * Nothing in an entry depends on the config: which files are articles and which terms count
 * are worked out afresh on every plan.
 */
export const ARTICLE_INDEX_CACHE: CacheSpec = {
  kind: "articles",
  // Bumped whenever an entry's meaning changes (the fingerprint's hashing, what `attention` covers).
  format: 2,
  names: /^index\.bin$/,
};
const INDEX_ENTRY = "index.bin";

/** What the plan knows about an article without reading it. */
export interface ArticleFacts {
  /** The fingerprint of its body (matcher.ts `fingerprint`). */
  hashes: Uint32Array;
  /** Its frontmatter names `attention`: such an article is always read. */
  attention: boolean;
}

/** The facts of one article's bytes. */
function factsOf(path: string, bytes: Uint8Array): ArticleFacts {
  const warnings: string[] = [];
  const attention = attentionOf({ path, content: bytes }, warnings).length > 0 || warnings.length > 0;
  return { hashes: fingerprint(bodyOf(bytes) as Uint8Array), attention };
}

/** The keys of the terms detection looks up (termKey), as a set to test fingerprints against. */
export function termKeys(terms: readonly string[]): Set<number> {
  return new Set(terms.map(termKey));
}

/** Whether detection must read an article with these facts to find `keys` (and its attention). */
export function mustRead(facts: ArticleFacts, keys: ReadonlySet<number>): boolean {
  if (facts.attention) return true;
  if (keys.size === 0) return false;
  for (const hash of facts.hashes) if (keys.has(hash)) return true;
  return false;
}

/** Each readable article's facts, by path. */
export type IndexedArticles = Map<string, ArticleFacts>;

/**
 * The facts of every listed article: from the index when its blob is there, else read now
 * (working tree files without following symlinks, or the revision's blobs). Articles that
 * cannot be read (deleted since listing, a symlink, a folder) are left out, as readArticles
 * leaves them out. The index is updated for the next plan when anything changed.
 */
export async function indexArticles(
  repoRoot: string,
  listed: readonly ListedFile[],
  options: { revision?: string | undefined; cache?: CacheStore | undefined } = {},
): Promise<IndexedArticles> {
  const source = options.revision === undefined ? "w" : "b";
  const cache = options.cache;
  const stored = cache ? await loadIndex(cache) : new Map<string, ArticleFacts>();
  const next = new Map<string, ArticleFacts>();
  const facts: IndexedArticles = new Map();
  const missing: ListedFile[] = [];
  for (const entry of listed) {
    const key = entry.sha === undefined ? undefined : `${source}${entry.sha}`;
    const known = key === undefined ? undefined : stored.get(key);
    if (known) {
      facts.set(entry.path, known);
      next.set(key!, known);
    } else missing.push(entry);
  }
  if (options.revision !== undefined) {
    const shas = missing.flatMap((entry) => entry.sha ?? []);
    const blobs = await readBlobs(repoRoot, shas);
    for (const entry of missing) {
      const text = entry.sha === undefined ? undefined : blobs.get(entry.sha);
      if (text === undefined) continue;
      const found = factsOf(entry.path, Buffer.from(text, "utf8"));
      facts.set(entry.path, found);
      next.set(`${source}${entry.sha}`, found);
    }
  } else {
    const buffer = { bytes: Buffer.allocUnsafe(READ_BUFFER_BYTES) };
    for (const [index, entry] of missing.entries()) {
      // Sync reads hold the event loop; let git's replies in now and then.
      if (index % YIELD_EVERY === YIELD_EVERY - 1) await new Promise((resolve) => setImmediate(resolve));
      const bytes = readWorktreeFile(join(repoRoot, entry.path), buffer);
      if (bytes === undefined) continue;
      const found = factsOf(entry.path, bytes);
      facts.set(entry.path, found);
      if (entry.sha !== undefined) next.set(`${source}${entry.sha}`, found);
    }
  }
  if (cache && (next.size !== stored.size || [...next.keys()].some((key) => !stored.has(key)))) {
    await saveIndex(cache, next);
  }
  // In the listing's (sorted) order, as the articles were always handed to detection.
  const ordered: IndexedArticles = new Map();
  for (const entry of listed) {
    const found = facts.get(entry.path);
    if (found) ordered.set(entry.path, found);
  }
  return ordered;
}

const READ_BUFFER_BYTES = 1024 * 1024;
/** Files read between two turns of the event loop (a few ms of reading). */
const YIELD_EVERY = 100;

/**
 * A working-tree file's bytes in a buffer reused from file to file (no allocation per file,
 * so reading 20,000 articles touches little fresh memory); undefined when it cannot be an
 * article (gone, a folder, a symlink: O_NOFOLLOW, as readArticles).
 */
function readWorktreeFile(path: string, buffer: { bytes: Buffer }): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (isSkippable(error)) return undefined;
    throw error;
  }
  try {
    let filled = 0;
    for (;;) {
      if (filled === buffer.bytes.length) {
        const grown = Buffer.allocUnsafe(buffer.bytes.length * 2);
        buffer.bytes.copy(grown, 0, 0, filled);
        buffer.bytes = grown;
      }
      const room = buffer.bytes.length - filled;
      const count = readSync(fd, buffer.bytes, filled, room, null);
      filled += count;
      // A regular file reads short only at its end: no further read to see the end.
      if (count < room) break;
    }
    return buffer.bytes.subarray(0, filled);
  } catch (error) {
    if (isSkippable(error)) return undefined;
    throw error;
  } finally {
    closeSync(fd);
  }
}

function isSkippable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "EISDIR" || code === "ENOTDIR" || code === "ELOOP";
}

interface IndexHeader {
  endian: string;
  keys: string[];
  /** Positions in `keys` of the entries whose `attention` holds. */
  attention: number[];
  /** Each entry's number of hashes; the hashes follow the header, entry after entry. */
  counts: number[];
}

/**
 * The stored index, or an empty one when the cache holds none this machine wrote for this
 * version of Impact, or it is malformed.
 */
async function loadIndex(cache: CacheStore): Promise<Map<string, ArticleFacts>> {
  const index = new Map<string, ArticleFacts>();
  const file = await cache.get(INDEX_ENTRY);
  if (!file) return index;
  const newline = file.indexOf(10);
  if (newline < 0) return index;
  let header: IndexHeader;
  try {
    header = JSON.parse(file.toString("utf8", 0, newline)) as IndexHeader;
  } catch {
    return index;
  }
  if (header.endian !== endianness()) return index;
  const { keys, attention, counts } = header;
  if (!Array.isArray(keys) || !Array.isArray(attention) || !Array.isArray(counts)) return index;
  if (keys.length !== counts.length) return index;
  const start = alignedLength(newline + 1);
  const total = counts.reduce((sum, count) => sum + (Number.isInteger(count) && count >= 0 ? count : NaN), 0);
  if (!(file.length - start === total * 4)) return index;
  // A view when the bytes are aligned for 32-bit reads (a whole-file read is), else a copy.
  const hashes =
    (file.byteOffset + start) % 4 === 0
      ? new Uint32Array(file.buffer, file.byteOffset + start, total)
      : new Uint32Array(file.buffer.slice(file.byteOffset + start, file.byteOffset + file.length));
  const marked = new Set(attention);
  let offset = 0;
  keys.forEach((key, position) => {
    const count = counts[position]!;
    index.set(key, { hashes: hashes.subarray(offset, offset + count), attention: marked.has(position) });
    offset += count;
  });
  return index;
}

/** Hands the index to its cache; one that cannot be written only costs the next plan its reads. */
async function saveIndex(cache: CacheStore, index: Map<string, ArticleFacts>): Promise<void> {
  const keys = [...index.keys()];
  const header: IndexHeader = {
    endian: endianness(),
    keys,
    attention: keys.flatMap((key, position) => (index.get(key)!.attention ? [position] : [])),
    counts: keys.map((key) => index.get(key)!.hashes.length),
  };
  const text = `${JSON.stringify(header)}\n`;
  const headerBytes = Buffer.byteLength(text);
  const start = alignedLength(headerBytes);
  const total = header.counts.reduce((sum, count) => sum + count, 0);
  const file = Buffer.alloc(start + total * 4);
  file.write(text, 0, "utf8");
  // Spaces between the header line and the hashes, so the hashes start 4-byte aligned.
  file.fill(32, headerBytes, start);
  const hashes = new Uint32Array(file.buffer, file.byteOffset + start, total);
  let offset = 0;
  for (const key of keys) {
    const entry = index.get(key)!.hashes;
    hashes.set(entry, offset);
    offset += entry.length;
  }
  await cache.put(INDEX_ENTRY, file);
}

function alignedLength(length: number): number {
  return Math.ceil(length / 4) * 4;
}
