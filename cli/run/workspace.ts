import { createHash } from "node:crypto";
import { readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { docsRepositoryPath, pathInDocsRepository } from "../../shared/docs-repository.js";
import { contentHash } from "../../shared/hash.js";
import { DEFAULT_MAX_FILE_BYTES } from "../../shared/limits.js";
import { createFilePatch } from "../../shared/patch.js";
import { listRepositoryFiles, listTrackedFiles } from "../git/repository.js";
import { ReadBudget } from "./read-budget.js";

/** Files up to this size are read synchronously (see readView). */
const SYNC_READ_BYTES = 1024 * 1024;

/** What a path holds, as the tools see it: overlay first, then disk. */
export type FileView =
  | { kind: "text"; content: string; hash: string; bytes: number }
  | { kind: "binary"; hash: string; bytes: number }
  | { kind: "too_large"; bytes: number }
  /** A file with more than one hard link that git does not track: it may be any file of the machine. */
  | { kind: "hard_link"; links: number }
  | { kind: "not_file" }
  | { kind: "missing" };

/** One file the overlay changed: its bytes before and after, their hashes and the patch. */
export interface WorkspaceChange {
  path: string;
  before: string | null;
  after: string;
  hashBefore: string | null;
  hashAfter: string;
  patch: string;
}

/**
 * An overlay over the repository root. Reads see the overlay, then
 * disk; edits land in the overlay only, through a per-article draft so that an article's
 * edits are all or nothing. The workspace never writes to disk: disk writes go through
 * applyAudit (cli/audit/apply-audit.ts) from the audit the run builds, which checks each
 * file against the sandbox policy and the hash its edits were made against.
 *
 * Paths are normalised repository-relative POSIX paths; the caller (AgentToolHost)
 * applies the sandbox policy before a path reaches the workspace. Several article loops
 * may share one Workspace concurrently.
 */
export class Workspace {
  readonly root: string;
  readonly maxFileBytes: number;
  /** The bytes the read tools of every article may hold at once (limits.readBytesInFlight). */
  readonly readBudget: ReadBudget;
  readonly #base = new Map<string, Promise<FileView>>();
  /** The settled base views, so that `changes()` can be synchronous. */
  readonly #baseSettled = new Map<string, FileView>();
  readonly #overlay = new Map<string, string>();
  readonly #openDrafts = new Set<string>();
  #fileList: Promise<string[]> | undefined;
  /** `#fileList` filtered, by filter key (see `repositoryFiles`). */
  readonly #keptFiles = new Map<string, Promise<readonly string[]>>();

  readonly #readIgnored: ((path: string) => boolean) | undefined;
  readonly #worktree: Promise<string> | undefined;
  #tracked: Promise<Set<string>> | undefined;
  /** A separate docs repository, whose files are `name:PATH` here (SandboxPolicy checks them the same way). */
  readonly #docs: { name: string; root: string; tracked?: Promise<Set<string>> } | undefined;

  /**
   * `readIgnored`: which git-ignored files the tools may see (config `readIgnored`); by
   * default none is listed, searched or read.
   */
  constructor(
    root: string,
    options: {
      maxFileBytes?: number;
      readBudget?: ReadBudget;
      readIgnored?: ((path: string) => boolean) | undefined;
      docsRepository?: { name: string; root: string } | undefined;
      /** A listWorktree listing of `root` the command holds already (its plan's), read instead of a new one. */
      worktree?: Promise<string> | undefined;
    } = {},
  ) {
    this.root = root;
    this.#docs = options.docsRepository && { ...options.docsRepository };
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.readBudget = options.readBudget ?? new ReadBudget();
    this.#readIgnored = options.readIgnored;
    this.#worktree = options.worktree;
  }

  #listRepository(): Promise<string[]> {
    const docs = this.#docs;
    const options = { ignoredMatching: this.#readIgnored, worktree: this.#worktree };
    this.#fileList ??= docs
      ? Promise.all([listRepositoryFiles(this.root, options), listRepositoryFiles(docs.root)]).then(
          ([code, articles]) =>
            [...code, ...articles.map((path) => docsRepositoryPath(docs.name, path))].sort(),
        )
      : listRepositoryFiles(this.root, options);
    return this.#fileList;
  }

  /** Where a workspace path is: its repository's root and the path inside it. */
  #locate(path: string): { root: string; path: string; docs: boolean } {
    const inDocs = this.#docs && pathInDocsRepository(this.#docs.name, path);
    return inDocs === undefined || inDocs === ""
      ? { root: this.root, path, docs: false }
      : { root: this.#docs!.root, path: inDocs, docs: true };
  }

  /** The absolute path of a workspace path, in the code or the docs repository. */
  #absolute(path: string): string {
    const located = this.#locate(path);
    return join(located.root, located.path);
  }

  /**
   * Whether git tracks `path` and, when it is reached through a symlink, the file it leads
   * to (asked only for files with more than one hard link).
   */
  #isTracked = async (asked: string): Promise<boolean> => {
    const { root, path, docs } = this.#locate(asked);
    let tracked: Set<string>;
    if (docs) {
      this.#docs!.tracked ??= listTrackedFiles(root);
      tracked = await this.#docs!.tracked;
    } else {
      this.#tracked ??= listTrackedFiles(root);
      tracked = await this.#tracked;
    }
    let real: string;
    try {
      real = relative(realpathSync(root), realpathSync(join(root, path)))
        .split(sep)
        .join("/");
    } catch {
      return false;
    }
    return tracked.has(path) && tracked.has(real);
  };

  /**
   * The bytes `load(path)` would read from disk: 0 when the overlay or the run's cache holds
   * the file already, or when it would not be loaded (missing, not a file, too large).
   */
  diskBytesToLoad(path: string): number {
    if (this.#overlay.has(path) || this.#base.has(path)) return 0;
    assertRelative(path);
    try {
      const info = statSync(this.#absolute(path));
      return info.isFile() && info.size <= this.maxFileBytes ? info.size : 0;
    } catch {
      return 0;
    }
  }

  /**
   * The file as tools see it: overlay first, then disk as first read. With `cache: false`
   * a file not read before is read from disk without being kept (a repository-wide search
   * must not hold every file in memory for the rest of the run).
   */
  async load(path: string, options: { cache?: boolean } = {}): Promise<FileView> {
    const overlaid = this.#overlay.get(path);
    if (overlaid !== undefined) return textView(overlaid);
    if (options.cache === false && !this.#base.has(path)) {
      assertRelative(path);
      return readView(this.#absolute(path), this.maxFileBytes, () => this.#isTracked(path));
    }
    return this.loadBase(path);
  }

  /** The text of a file (overlay, then disk), or null when it does not exist. */
  async read(path: string): Promise<string | null> {
    const view = await this.load(path);
    if (view.kind === "missing") return null;
    if (view.kind !== "text") throw new Error(`${path} is not a text file (${view.kind})`);
    return view.content;
  }

  /** The file as it was on disk when first read (cached for the whole run). */
  loadBase(path: string): Promise<FileView> {
    assertRelative(path);
    let pending = this.#base.get(path);
    if (!pending) {
      pending = readView(this.#absolute(path), this.maxFileBytes, () => this.#isTracked(path)).then(
        (view) => {
          this.#baseSettled.set(path, view);
          return view;
        },
      );
      this.#base.set(path, pending);
    }
    return pending;
  }

  /** The disk text of a file as first read, or null when it did not exist. */
  async baseContent(path: string): Promise<string | null> {
    const view = await this.loadBase(path);
    if (view.kind === "missing") return null;
    if (view.kind !== "text") throw new Error(`${path} is not a text file (${view.kind})`);
    return view.content;
  }

  /** The hash of the disk bytes as first read, or null when the file did not exist. */
  async baseHash(path: string): Promise<string | null> {
    const view = await this.loadBase(path);
    return view.kind === "text" || view.kind === "binary" ? view.hash : null;
  }

  /**
   * Opens the draft of one article. Its edits stay private until `commit()` puts them
   * into the overlay together; `discard()` drops them. One open draft per article.
   */
  beginArticle(path: string): ArticleDraft {
    assertRelative(path);
    if (this.#openDrafts.has(path)) throw new Error(`a draft of ${path} is already open`);
    this.#openDrafts.add(path);
    return new ArticleDraft(this, path, {
      commit: (files) => this.#commitDraft(path, files),
      close: () => this.#openDrafts.delete(path),
    });
  }

  #commitDraft(_article: string, files: Map<string, string>): { committed: string[]; conflicts: string[] } {
    // Two articles creating the same new file with different text: the first one wins,
    // and the second article commits nothing at all (its edits are all or nothing).
    const conflicts = [...files]
      .filter(([path, content]) => {
        const overlaid = this.#overlay.get(path);
        return (
          this.#baseSettled.get(path)?.kind === "missing" && overlaid !== undefined && overlaid !== content
        );
      })
      .map(([path]) => path);
    if (conflicts.length > 0) return { committed: [], conflicts };
    for (const [path, content] of files) this.#overlay.set(path, content);
    return { committed: [...files.keys()].sort(), conflicts: [] };
  }

  /**
   * The files the overlay changed (all, or those of `paths`), sorted by path, each with its
   * patch from base bytes to overlay bytes. An article's loop asks for its own files only,
   * so a run does not diff every earlier article again.
   */
  changes(paths?: readonly string[]): WorkspaceChange[] {
    const result: WorkspaceChange[] = [];
    const selected = paths ? paths.filter((path) => this.#overlay.has(path)) : [...this.#overlay.keys()];
    for (const path of selected.sort()) {
      const after = this.#overlay.get(path)!;
      const base = this.#baseSettled.get(path);
      if (!base) throw new Error(`bug: ${path} is in the overlay but its base was never read`);
      if (base.kind !== "text" && base.kind !== "missing") continue;
      const before = base.kind === "text" ? base.content : null;
      if (before === after) continue;
      result.push({
        path,
        before,
        after,
        hashBefore: base.kind === "text" ? base.hash : null,
        hashAfter: contentHash(after),
        // A docs repository's patch names its own path, so `git apply` takes it there.
        patch: createFilePatch(this.#locate(path).path, before, after),
      });
    }
    return result;
  }

  /**
   * Paths of the repository's files, sorted: tracked and untracked files not ignored by
   * `.gitignore` (through git itself), plus files created in the overlay. Cached per run.
   */
  async listFiles(): Promise<string[]> {
    const files = new Set(await this.#listRepository());
    for (const path of this.#overlay.keys()) files.add(path);
    return [...files].sort();
  }

  /**
   * The repository's files as `listFiles` has them, without the overlay, keeping those
   * `keep` accepts; sorted. Filtered once per run and `key`: the caller passes the same
   * filter under the same key (the sandbox's deny list), so a tool call does not filter
   * every file of the repository again.
   */
  repositoryFiles(key: string, keep: (path: string) => boolean): Promise<readonly string[]> {
    let kept = this.#keptFiles.get(key);
    if (!kept) {
      kept = this.#listRepository().then((files) => files.filter(keep));
      this.#keptFiles.set(key, kept);
    }
    return kept;
  }

  /** Paths in the overlay (changed or created by committed articles), sorted. */
  get overlayPaths(): string[] {
    return [...this.#overlay.keys()].sort();
  }
}

/**
 * The private edits of one article loop. Reads see the draft, then the workspace. Every
 * file must be loaded before it is set, so the workspace knows the bytes it replaces.
 */
export class ArticleDraft {
  readonly path: string;
  readonly #workspace: Workspace;
  readonly #files = new Map<string, string>();
  readonly #reads = new Map<string, string>();
  readonly #hooks: {
    commit: (files: Map<string, string>) => { committed: string[]; conflicts: string[] };
    close: () => void;
  };
  #closed = false;

  constructor(
    workspace: Workspace,
    path: string,
    hooks: {
      commit: (files: Map<string, string>) => { committed: string[]; conflicts: string[] };
      close: () => void;
    },
  ) {
    this.#workspace = workspace;
    this.path = path;
    this.#hooks = hooks;
  }

  /**
   * The file as this article sees it: draft, then overlay, then disk. A file loaded whole
   * (not a search passing over it) is remembered with its fingerprint (`reads`).
   */
  async load(path: string = this.path, options: { cache?: boolean } = {}): Promise<FileView> {
    const drafted = this.#files.get(path);
    if (drafted !== undefined) return textView(drafted);
    const view = await this.#workspace.load(path, options);
    if (options.cache !== false && !this.#reads.has(path)) this.#reads.set(path, fileFingerprint(view));
    return view;
  }

  /** The files this article loaded whole, each with the fingerprint of what it saw (fileFingerprint). */
  get reads(): ReadonlyMap<string, string> {
    return this.#reads;
  }

  /** The text as this article sees it, or null when the file does not exist. */
  async read(path: string = this.path): Promise<string | null> {
    const view = await this.load(path);
    if (view.kind === "missing") return null;
    if (view.kind !== "text") throw new Error(`${path} is not a text file (${view.kind})`);
    return view.content;
  }

  /** Replaces the draft content of a file (the article, or a file this article creates). */
  async set(content: string, path: string = this.path): Promise<void> {
    if (this.#closed) throw new Error(`the draft of ${this.path} is closed`);
    await this.#workspace.loadBase(path);
    this.#files.set(path, content);
  }

  /** The bytes `load(path)` would read from disk (0 for a drafted file); see Workspace.diskBytesToLoad. */
  diskBytesToLoad(path: string = this.path): number {
    return this.#files.has(path) ? 0 : this.#workspace.diskBytesToLoad(path);
  }

  /** Paths this draft changed or created, sorted. */
  get paths(): string[] {
    return [...this.#files.keys()].sort();
  }

  /** Puts all drafted files into the workspace overlay at once and closes the draft. */
  commit(): { committed: string[]; conflicts: string[] } {
    if (this.#closed) return { committed: [], conflicts: [] };
    this.#closed = true;
    this.#hooks.close();
    return this.#hooks.commit(this.#files);
  }

  /** Drops every drafted change and closes the draft: a failed article leaves no trace. */
  discard(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#files.clear();
    this.#hooks.close();
  }
}

/** A text view whose hash is computed on first use: a search reads many files and hashes none. */
function textView(content: string, bytes = Buffer.byteLength(content)): FileView {
  let hash: string | undefined;
  return {
    kind: "text",
    content,
    bytes,
    get hash() {
      hash ??= contentHash(content);
      return hash;
    },
  };
}

function assertRelative(path: string): void {
  if (path === "" || isAbsolute(path) || path.split("/").includes("..") || path.includes("\0"))
    throw new Error(`bug: workspace path must be repository-relative: ${JSON.stringify(path)}`);
}

/**
 * Reads one file for the tools. Synchronous calls on purpose: for the small files a tool
 * reads they cost microseconds, where each async call is a thread-pool round trip, which
 * made repository-wide searches several times slower (bench/tool-host.bench.ts).
 */
async function readView(
  absolute: string,
  maxBytes: number,
  isTracked: () => Promise<boolean>,
): Promise<FileView> {
  let info: Stats;
  try {
    info = statSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    throw error;
  }
  // FIFOs, sockets and devices would block or never end.
  if (!info.isFile()) return { kind: "not_file" };
  // A hard link made in the working tree can name any file of the same file system
  // (~/.ssh/id_rsa as docs/notes.md); a tracked file's content is the repository's own.
  if (info.nlink > 1 && !(await isTracked())) return { kind: "hard_link", links: info.nlink };
  if (info.size > maxBytes) return { kind: "too_large", bytes: info.size };
  const bytes = info.size > SYNC_READ_BYTES ? await readFile(absolute) : readFileSync(absolute);
  const content = decodeText(bytes);
  if (content === null) return { kind: "binary", hash: contentHash(bytes), bytes: bytes.length };
  // Valid UTF-8 re-encodes to the same bytes, so the text's hash is the file's hash.
  return textView(content, bytes.length);
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What a view held, as a result cache compares it: the sha256 of a text, else its kind and what is known of it. */
export function fileFingerprint(view: FileView): string {
  if (view.kind === "text") return createHash("sha256").update(view.content).digest("hex");
  return JSON.stringify(view);
}

/** The text of the bytes when they are UTF-8 without NUL bytes (a BOM is kept), else null. */
function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}
