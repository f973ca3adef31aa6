import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { expect } from "vitest";
import type { CacheSpec } from "../../cli/workdir/cache-store.js";
import { loadStateKey } from "../../cli/workdir/state-key.js";
import { cacheFolder } from "../../cli/workdir/workdir.js";
import { sealStateEntry, splitStateEntry } from "../../shared/state-entry.js";

/** Where a cache entry of a repository lives. */
export function cacheEntryPath(dir: string, kind: CacheSpec["kind"], name: string): string {
  return join(dir, cacheFolder(kind), name);
}

/** An entry's payload, its envelope checked for shape only. */
export function readCachePayload(path: string): Buffer {
  const split = splitStateEntry(readFileSync(path));
  expect(split).toBeDefined();
  return split!.payload;
}

/**
 * Rewrites an entry's payload and seals it again under this machine's key (the one a run
 * with `env` uses), as if Impact had written it: what a test needs to show an entry is read.
 */
export async function resealCacheEntry(
  path: string,
  change: (payload: Buffer) => Buffer | string,
  options: { env?: Record<string, string | undefined>; version?: string | undefined } = {},
): Promise<void> {
  const split = splitStateEntry(readFileSync(path));
  expect(split).toBeDefined();
  const key = await loadStateKey(options.env ?? {});
  if (!("secret" in key)) throw new Error(key.problem);
  const label = { kind: split!.kind, version: options.version ?? split!.version, name: basename(path) };
  writeFileSync(path, sealStateEntry(key.secret, label, change(split!.payload)));
}
