import { lstat, mkdir, realpath, writeFile } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { gitAt, trackedUnder } from "../git/repository.js";
import { type CacheSpec, CacheStore } from "./cache-store.js";
import { loadStateKey, type StateKey } from "./state-key.js";

/**
 * `.impact/`: the folder Impact owns in a repository, and the one module that knows its
 * layout. Audit and patch (the default outputs of `impact run`) sit at its top; each cache
 * has a folder under `cache/`:
 *
 *     .impact/audit.json  .impact/impact.patch  .impact/.gitignore
 *     .impact/cache/results/<key>.json         one article's result (cli/run/result-cache.ts)
 *     .impact/cache/articles/index.bin         article fingerprints (cli/plan/article-index.ts)
 *     .impact/cache/history/<base sha>.json    a base's history (cli/plan/history.ts)
 *     .impact/cache/declarations/index.json    parsed declarations (cli/plan/symbols/declaration-cache.ts)
 *     .impact/cache/judge/<key>.json           one related article's verdict (cli/plan/judge.ts)
 *
 * State belongs to the product, never to the repository's content. A `.impact` (or a folder
 * under it) that is a symlink or not a plain folder holds no state: the run goes on without
 * caches, with one warning, and nothing is read, written or pruned through it. Files git
 * tracks under `.impact/` are never read, written over or pruned (one warning). Every entry
 * is sealed with a keyed MAC under a secret outside the repository (state-key.ts), so an
 * entry this machine did not write is never used. Cache writes wait for `save()`, which a
 * command calls once its input was validated: bad input writes nothing.
 */
/**
 * Files under `.impact/` that are configuration the maintainers commit, not state: the
 * style instructions (cli/run/instructions.ts). Tracking them is expected, not warned about.
 */
const COMMITTED_CONFIG = new Set(["instructions.md"]);

export const WORKDIR = ".impact";

/** The default outputs of `impact run`, relative to the repository root. */
export const DEFAULT_AUDIT = join(WORKDIR, "audit.json");
export const DEFAULT_PATCH = join(WORKDIR, "impact.patch");

/** A cache's folder, relative to the repository root. */
export function cacheFolder(kind: CacheSpec["kind"]): string {
  return join(WORKDIR, "cache", kind);
}

type Access =
  | { usable: true; tracked: ReadonlySet<string>; realRoot: string }
  | { usable: false; reason: string };

export interface WorkdirOptions {
  /** Where the state key comes from (IMPACT_STATE_KEY, XDG_CACHE_HOME, HOME). */
  env: Record<string, string | undefined>;
  /**
   * A listWorktree listing of the root that the command reads anyway (its articles): which
   * files under `.impact/` git tracks is read from it, without a `git ls-files` of its own.
   */
  worktree?: Promise<string> | undefined;
}

export class Workdir {
  /** The repository root. */
  readonly root: string;
  /** `<root>/.impact`. */
  readonly path: string;
  readonly #env: Record<string, string | undefined>;
  readonly #worktree: Promise<string> | undefined;
  #access: Promise<Access> | undefined;
  #key: Promise<StateKey> | undefined;
  readonly #stores = new Map<string, Promise<CacheStore | undefined>>();
  /** Writes waiting for `save()`, by file: a later write of the same entry replaces an earlier one. */
  readonly #pending = new Map<string, () => Promise<void>>();
  #saved = false;
  readonly #warned = new Set<string>();
  #unread: string[] = [];

  constructor(root: string, options: WorkdirOptions) {
    this.root = resolve(root);
    this.path = join(this.root, WORKDIR);
    this.#env = options.env;
    this.#worktree = options.worktree;
  }

  /** Starts the checks (a lstat and one `git ls-files`, or the worktree listing's) so a later cache lookup finds them done. */
  prepare(): this {
    void this.#checkAccess();
    return this;
  }

  /** Warnings not handed out yet (each said once per run). */
  takeWarnings(): string[] {
    const warnings = this.#unread;
    this.#unread = [];
    return warnings;
  }

  #warn(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#unread.push(message);
  }

  /** Why `.impact` cannot hold Impact's files (a symlink, not a folder), or undefined when it can. */
  async refusal(): Promise<string | undefined> {
    const access = await this.#checkAccess();
    return access.usable ? undefined : access.reason;
  }

  #checkAccess(): Promise<Access> {
    // Never rejects: a repository that went away (or cannot be read) holds no state.
    this.#access ??= this.#inspect().catch((error: unknown) => ({
      usable: false as const,
      reason: `${WORKDIR} cannot be checked (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    }));
    return this.#access;
  }

  /** Whether `.impact` can hold state, and which files under it git tracks (its committed config aside). */
  async #inspect(): Promise<Access> {
    const problem = await notAFolder(this.path, WORKDIR);
    if (problem === "absent")
      return { usable: true, tracked: new Set(), realRoot: await realpath(this.root) };
    if (problem) return { usable: false, reason: problem };
    let listed: string[];
    try {
      listed = this.#worktree
        ? trackedUnder(await this.#worktree, WORKDIR)
        : (await gitAt(this.root).raw(["ls-files", "-z", "--cached", "--", WORKDIR])).split("\0");
    } catch {
      return { usable: false, reason: `cannot tell which files under ${WORKDIR}/ git tracks` };
    }
    const tracked = new Set(
      listed
        .filter((path) => path.startsWith(`${WORKDIR}/`))
        .map((path) => path.slice(WORKDIR.length + 1))
        .filter((path) => !COMMITTED_CONFIG.has(path)),
    );
    if (tracked.size > 0) {
      this.#warn(
        `ignoring ${tracked.size === 1 ? "1 file" : `${tracked.size} files`} under ${WORKDIR}/ that git tracks: Impact never reads its state from the repository's content (untrack them with git rm -r --cached ${WORKDIR})`,
      );
    }
    return { usable: true, tracked, realRoot: await realpath(this.root) };
  }

  #stateKey(): Promise<StateKey> {
    this.#key ??= loadStateKey(this.#env);
    return this.#key;
  }

  /**
   * The cache `spec.kind` under `.impact/cache/`, or undefined (with one warning) when the
   * workdir cannot hold state or there is no state key.
   */
  cache(spec: CacheSpec): Promise<CacheStore | undefined> {
    let store = this.#stores.get(spec.kind);
    if (!store) {
      store = this.#openCache(spec);
      this.#stores.set(spec.kind, store);
    }
    return store;
  }

  async #openCache(spec: CacheSpec): Promise<CacheStore | undefined> {
    const [access, key] = await Promise.all([this.#checkAccess(), this.#stateKey()]);
    if (!access.usable) {
      this.#warn(`${access.reason}: running without Impact's caches; nothing is read or written through it`);
      return undefined;
    }
    if ("problem" in key) {
      this.#warn(`${key.problem}: running without Impact's caches`);
      return undefined;
    }
    const relative = join("cache", spec.kind);
    for (const folder of ["cache", relative]) {
      if (access.tracked.has(folder)) return undefined;
      const problem = await notAFolder(join(this.path, folder), join(WORKDIR, folder));
      if (problem && problem !== "absent") {
        this.#warn(`${problem}: running without that cache; nothing is read or written through it`);
        return undefined;
      }
    }
    const prefix = `${relative}/`;
    const tracked = new Set(
      [...access.tracked].filter((path) => path.startsWith(prefix)).map((path) => path.slice(prefix.length)),
    );
    const realDir = join(access.realRoot, WORKDIR, relative);
    return new CacheStore({
      spec,
      dir: join(this.path, relative),
      realDir: async () => {
        await this.ensureIgnored();
        return realDir;
      },
      secret: key.secret,
      tracked,
      schedule: (name, write) => this.#schedule(join(this.path, relative, name), write),
    });
  }

  /**
   * A cache in a folder the user chose (`--cache-dir`): sealed and bounded like the others,
   * but where it lives is the user's call, not the repository's.
   */
  async cacheAt(dir: string, spec: CacheSpec): Promise<CacheStore | undefined> {
    const key = await this.#stateKey();
    if ("problem" in key) {
      this.#warn(`${key.problem}: running without Impact's caches`);
      return undefined;
    }
    return new CacheStore({
      spec,
      dir,
      realDir: async () => realpath(dir),
      secret: key.secret,
      tracked: new Set(),
      schedule: (name, write) => this.#schedule(join(dir, name), write),
    });
  }

  #schedule(path: string, write: () => Promise<void>): Promise<void> {
    if (this.#saved) return write();
    this.#pending.set(path, write);
    return Promise.resolve();
  }

  /**
   * Writes what the caches were given so far and prunes them; later writes go straight to
   * disk. Called once the command's input was validated, so bad input writes nothing.
   */
  async save(): Promise<void> {
    this.#saved = true;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    await Promise.all(pending.map((write) => write()));
    await this.prune();
  }

  /** Prunes every cache opened in this run to its bounds. */
  async prune(): Promise<void> {
    const stores = await Promise.all(this.#stores.values());
    await Promise.all(stores.map((store) => store?.prune()));
  }

  /**
   * Makes `.impact/` ignore itself (a `.gitignore` holding `*`), so its files never show up
   * in `git status` or get committed by a docs PR by accident. An existing file is kept;
   * nothing is written when `.impact` cannot hold Impact's files.
   */
  async ensureIgnored(): Promise<void> {
    if (await this.refusal()) throw new Error(`${WORKDIR} cannot hold Impact's files`);
    await mkdir(this.path, { recursive: true });
    try {
      await writeFile(
        join(this.path, ".gitignore"),
        "# Impact's outputs and caches; not for committing.\n*\n",
        {
          flag: "wx",
        },
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/**
 * Whether `path` is a file under a repository's `.impact/` that git tracks: content of the
 * repository posing as Impact's output (an audit a pull request committed), never to be
 * taken for it. Only a path through a `.impact` folder costs a git call.
 */
export async function isTrackedWorkdirFile(path: string): Promise<boolean> {
  const parts = resolve(path).split(sep);
  const at = parts.lastIndexOf(WORKDIR);
  if (at <= 0) return false;
  const root = parts.slice(0, at).join(sep) || sep;
  try {
    const listed = await gitAt(root).raw(["ls-files", "-z", "--cached", "--", parts.slice(at).join("/")]);
    return listed !== "";
  } catch {
    return false;
  }
}

/** "absent", a sentence saying why `path` is no plain folder, or undefined when it is one. */
async function notAFolder(path: string, shown: string): Promise<string | undefined> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return `${shown} is a symlink`;
    if (!info.isDirectory()) return `${shown} is not a folder`;
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "absent";
    return `${shown} cannot be read (${code ?? "error"})`;
  }
}
