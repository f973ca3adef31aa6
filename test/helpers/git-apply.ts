import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createFilePatch } from "../../shared/patch.js";
import { gitRepo } from "./git-repo.js";

/** One file's change: its bytes before (null: it does not exist yet) and after (null: deleted). */
export interface FileChange {
  before: string | null;
  after: string | null;
}

/**
 * Applies the patches `createFilePatch` writes for `changes` with real `git apply`, all of them
 * as one combined patch (one git process, however many changes), each change to a file of its
 * own. Returns each file's bytes afterwards, null where it no longer exists.
 */
export function applyWithGit(changes: FileChange[], name = (index: number) => `docs/change-${index}.md`) {
  const repo = gitRepo();
  const patches: string[] = [];
  changes.forEach(({ before, after }, index) => {
    const path = name(index);
    if (before !== null) repo.write({ [path]: before });
    patches.push(createFilePatch(path, before, after));
  });
  mkdirSync(join(repo.dir, ".patch"), { recursive: true });
  writeFileSync(join(repo.dir, ".patch", "change.patch"), patches.join(""));
  repo.git("apply", ".patch/change.patch");
  return changes.map((_, index) => {
    try {
      return readFileSync(join(repo.dir, name(index)), "utf8");
    } catch {
      return null;
    }
  });
}
