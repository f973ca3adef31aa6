import { lstat, mkdir, readdir, readFile, realpath, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { prepareAtomicWrite } from "../../shared/fs.js";
import { openStateEntry, type StateEntryLabel, sealStateEntry } from "../../shared/state-entry.js";
import { VERSION } from "../version.js";

/** How much a cache keeps; past a bound the least recently used entries go first. */
interface CacheBounds {
  maxBytes?: number;
  maxEntries?: number;
  /** Entries not used for this long are removed. */
  maxAgeMs?: number;
}

/** What a cache declares about itself; the workdir (workdir.ts) adds where it lives and the key. */
export interface CacheSpec {
  /** The cache's folder name under `.impact/cache/`, and part of every entry's MAC. */
  kind: "results" | "articles" | "history" | "declarations" | "judge";
  /** Bumped whenever an entry's meaning changes; with Impact's version, entries of another are ignored. */
  format: number;
  /** The names of its entries (file names); nothing else in the folder is read or pruned. */
  names: RegExp;
  /** Bounds for a cache of many entries; a one-file cache bounds its own content. */
  bounds?: CacheBounds;
}

export interface CacheStoreOptions {
  spec: CacheSpec;
  dir: string;
  /** Where `dir` must really be (symlinks resolved): a write or prune that would land elsewhere does nothing. */
  realDir: () => Promise<string>;
  secret: Buffer;
  /** Entry names git tracks in the folder: never read, written over or pruned. */
  tracked: ReadonlySet<string>;
  /** Runs a write now, or once the run's input was validated (Workdir.save). */
  schedule: (name: string, write: () => Promise<void>) => Promise<void>;
}

/**
 * One cache folder under Impact's control: each entry a file, sealed with a keyed MAC
 * (shared/state-entry.ts) and written atomically. An entry that is missing, tracked by git,
 * foreign, of another version or not sealed under this machine's key reads as absent and is
 * replaced by the next write: never trusted, never fatal. Failures to write only cost the
 * next run the work again.
 */
export class CacheStore {
  readonly #options: CacheStoreOptions;

  constructor(options: CacheStoreOptions) {
    this.#options = options;
  }

  get dir(): string {
    return this.#options.dir;
  }

  #label(name: string): StateEntryLabel {
    const { spec } = this.#options;
    return { kind: spec.kind, version: `${spec.format}-${VERSION}`, name };
  }

  #usable(name: string): boolean {
    return this.#options.spec.names.test(name) && !this.#options.tracked.has(name);
  }

  /** The payload of entry `name` when this machine wrote it for this version; marks it used. */
  async get(name: string): Promise<Buffer | undefined> {
    if (!this.#usable(name)) return undefined;
    const path = join(this.#options.dir, name);
    let file: Buffer;
    try {
      // Only a regular file: a symlink planted in the folder leads nowhere.
      const info = await lstat(path);
      if (!info.isFile()) return undefined;
      file = await readFile(path);
    } catch {
      return undefined;
    }
    const payload = openStateEntry(this.#options.secret, this.#label(name), file);
    if (payload && this.#options.spec.bounds) {
      const now = new Date();
      await utimes(path, now, now).catch(() => undefined);
    }
    return payload;
  }

  /**
   * Entry `name` read as JSON and taken by `accept` (which returns undefined for anything it
   * does not take); undefined when absent. A sealed entry that is not JSON or not taken calls
   * `foreign` (for a warning) and reads as absent.
   */
  async getJson<T>(
    name: string,
    accept: (json: unknown) => T | undefined,
    foreign: () => void,
  ): Promise<T | undefined> {
    const payload = await this.get(name);
    if (!payload) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(payload.toString("utf8"));
    } catch {
      json = undefined;
    }
    const taken = json === undefined ? undefined : accept(json);
    if (taken === undefined) foreign();
    return taken;
  }

  /** Seals and writes entry `name` (atomically), now or once the workdir is saved. */
  put(name: string, payload: string | Uint8Array): Promise<void> {
    if (!this.#usable(name)) return Promise.resolve();
    const file = sealStateEntry(this.#options.secret, this.#label(name), payload);
    return this.#options.schedule(name, async () => {
      try {
        await mkdir(this.#options.dir, { recursive: true });
        const realDirectory = await this.#options.realDir();
        const prepared = await prepareAtomicWrite(join(this.#options.dir, name), file, { realDirectory });
        try {
          await prepared.commit();
        } catch (error) {
          await prepared.abort();
          throw error;
        }
      } catch {
        // A read-only checkout, a full disk, a folder swapped for a symlink: nothing written.
      }
    });
  }

  /** Removes entries past the cache's bounds: the oldest first, and only its own entries. */
  async prune(now = Date.now()): Promise<void> {
    const bounds = this.#options.spec.bounds;
    if (!bounds) return;
    const dir = this.#options.dir;
    let names: string[];
    try {
      if ((await realpath(dir)) !== (await this.#options.realDir())) return;
      names = (await readdir(dir)).filter((name) => this.#usable(name));
    } catch {
      return;
    }
    const entries = (
      await Promise.all(
        names.map(async (name) => {
          const path = join(dir, name);
          const info = await lstat(path).catch(() => undefined);
          return info?.isFile() ? { path, size: info.size, used: info.mtimeMs } : undefined;
        }),
      )
    )
      .filter((entry) => entry !== undefined)
      .sort((a, b) => b.used - a.used);
    let bytes = 0;
    for (const [position, entry] of entries.entries()) {
      bytes += entry.size;
      const stale =
        (bounds.maxAgeMs !== undefined && now - entry.used > bounds.maxAgeMs) ||
        (bounds.maxEntries !== undefined && position >= bounds.maxEntries) ||
        (bounds.maxBytes !== undefined && bytes > bounds.maxBytes);
      if (stale) await unlink(entry.path).catch(() => undefined);
    }
  }
}
