import { createHash } from "node:crypto";

/** A shard of a run: `--shard I/N`, 1-based index. */
export interface Shard {
  index: number;
  count: number;
}

/**
 * Which shard (1-based) a path belongs to among `count`: a stable hash of the path, so
 * every runner of a sharded CI job agrees without talking to the others.
 */
export function shardOf(path: string, count: number): number {
  const digest = createHash("sha256").update(path).digest();
  return (digest.readUInt32BE(0) % count) + 1;
}

/** The paths that belong to shard `index` of `count` (1-based), in their original order. */
export function selectShard<T extends string>(paths: readonly T[], index: number, count: number): T[] {
  return paths.filter((path) => shardOf(path, count) === index);
}

/** Parses `I/N` (1 ≤ I ≤ N); returns null for anything else. */
export function parseShard(text: string): Shard | null {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) return null;
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || index < 1 || index > count) return null;
  return { index, count };
}
