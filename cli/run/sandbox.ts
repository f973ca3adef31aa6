import { lstatSync, realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import picomatch from "picomatch";
import { DEFAULT_DENY_GLOBS } from "../../shared/config.js";
import { docsRepositoryPath, pathInDocsRepository } from "../../shared/docs-repository.js";

/** Why a path was refused; the message says what to do instead. */
export type PathRefusalCode = PathRefusal["code"];

/**
 * A refused path: the code and fields say why (for callers that word it their own way,
 * such as `impact apply`), the message says it to the model with what to do instead.
 * `viaSymlink`: the path as asked passed, its real path (after symlinks) did not.
 */
export type PathRefusal = { ok: false; message: string } & (
  | { code: "invalid" | "nul" | "absolute" | "home" | "backslash" | "encoded" | "traversal" }
  | { code: "git_dir"; viaSymlink: boolean }
  | { code: "denied"; pattern: string; viaSymlink: boolean }
  | { code: "outside_root"; dangling: boolean }
  | { code: "symlink_loop" }
);

/** A path off limits whatever the file system says: `.git/` or a deny pattern. */
export type DeniedPath = { code: "git_dir" } | { code: "denied"; pattern: string };

export interface ResolvedPath {
  ok: true;
  /** The normalised repository-relative POSIX path, as asked. */
  path: string;
  /** Absolute path as asked (symlinks not followed). */
  absolute: string;
  /** Absolute real path (symlinks followed; for a missing file, its deepest existing parent resolved). */
  realPath: string;
  /** Repository-relative POSIX form of realPath. */
  realRelative: string;
}

export type PathCheck = { ok: true; path: string } | PathRefusal;

const HINT = 'Use a repository-relative path with forward slashes, such as "docs/guide.md".';

/**
 * The sandbox policy (docs/tools-and-sandbox.md): which repository paths a tool may touch.
 * Checks the path as asked (syntax, `.git/`, the deny list on every component) and then
 * its real path after symlinks (must stay inside the root and pass the same checks).
 */
export class SandboxPolicy {
  readonly root: string;
  readonly denyPatterns: readonly string[];
  readonly #componentMatchers: { pattern: string; match: (name: string) => boolean }[] = [];
  readonly #pathMatchers: { pattern: string; match: (path: string) => boolean }[] = [];
  #realRoot: Promise<string> | undefined;
  /** A separate docs repository: paths `name:PATH` are its own, checked by the same rules on its root. */
  readonly #docs: { name: string; policy: SandboxPolicy } | undefined;
  /** How refusals name this policy's paths: `NAME:` for the docs repository's, as the model wrote them. */
  readonly #shownPrefix: string;

  /**
   * `docsRepository`: the checkout of a separate docs repository, whose paths are written
   * `name:PATH`; each of them is checked as a path of that repository (its root, its real
   * paths, the same deny list), never as one of the code repository.
   */
  constructor(options: {
    root: string;
    deny?: readonly string[] | undefined;
    docsRepository?: { name: string; root: string } | undefined;
    /** Internal: the prefix refusals show before a path (the docs repository's policy). */
    shownPrefix?: string;
  }) {
    this.root = options.root;
    this.#shownPrefix = options.shownPrefix ?? "";
    const docs = options.docsRepository;
    this.#docs = docs && {
      name: docs.name,
      policy: new SandboxPolicy({
        root: docs.root,
        shownPrefix: docsRepositoryPath(docs.name, ""),
        deny: options.deny,
      }),
    };
    this.denyPatterns = [...new Set([...DEFAULT_DENY_GLOBS, ...(options.deny ?? [])])];
    for (const pattern of this.denyPatterns) {
      // Case-insensitive: on macOS and Windows `.ENV` is the same file as `.env`.
      const match = picomatch(pattern, { dot: true, nocase: true });
      // A pattern without a slash names a file or directory anywhere; one with a slash, a path.
      if (pattern.includes("/")) this.#pathMatchers.push({ pattern, match });
      else this.#componentMatchers.push({ pattern, match });
    }
  }

  /** The root with its symlinks resolved. */
  realRoot(): Promise<string> {
    this.#realRoot ??= realpath(this.root);
    return this.#realRoot;
  }

  /** Checks a path as the model wrote it, without touching the file system. */
  checkSyntax(asked: string): PathCheck {
    const docs = this.#inDocs(asked);
    if (docs) {
      const check = docs.policy.checkSyntax(docs.path);
      return check.ok ? { ok: true, path: docsRepositoryPath(docs.name, check.path) } : check;
    }
    const named = `${this.#shownPrefix}${asked}`;
    const shown = JSON.stringify(named.length > 200 ? `${named.slice(0, 200)}…` : named);
    const refuse = (
      code: "invalid" | "nul" | "absolute" | "home" | "backslash" | "encoded" | "traversal",
      why: string,
    ): PathRefusal => ({ ok: false, code, message: `Refused: ${shown} ${why}` });
    if (typeof asked !== "string" || asked.trim() === "") return refuse("invalid", `is not a path. ${HINT}`);
    if (asked.includes("\0")) return refuse("nul", "contains a NUL byte. Paths are plain text.");
    if (asked.includes("\\"))
      return refuse("backslash", `contains a backslash; paths use forward slashes only. ${HINT}`);
    if (asked.startsWith("~")) return refuse("home", `points into a home directory. ${HINT}`);
    if (isAbsolute(asked) || /^[a-zA-Z]:/.test(asked) || asked.startsWith("//"))
      return refuse("absolute", `is an absolute path. ${HINT}`);
    if (/%(2e|2f|5c|00)/i.test(asked))
      return refuse("encoded", `contains percent-encoded characters, which are not decoded. ${HINT}`);
    // Control characters have no place in a repository path and hide tricks in logs.
    if (/[\u0000-\u001f\u007f]/.test(asked)) return refuse("invalid", "contains control characters.");
    const segments = asked.split("/").filter((segment) => segment !== "" && segment !== ".");
    if (segments.some((segment) => segment.trim() === ".." || /^\.{2,}$/.test(segment.trim())))
      return refuse("traversal", `contains "..". Only paths inside the repository can be used. ${HINT}`);
    if (segments.length === 0) return { ok: true, path: "." };
    const path = segments.join("/");
    const denied = this.deniedReason(path);
    if (denied)
      return { ...denied, ok: false, viaSymlink: false, message: `Refused: ${shown} ${deniedWhy(denied)}` };
    return { ok: true, path };
  }

  /**
   * Whether a normalised repository-relative path is off limits: `.git` anywhere on it,
   * or a deny pattern matching the file name, any directory name, or the whole path.
   */
  deniedReason(path: string): DeniedPath | null {
    const docs = this.#inDocs(path);
    if (docs) return docs.policy.deniedReason(docs.path);
    // Each name as the file systems that alias it see it: `server.pem.` and `.env::$DATA`
    // (Windows), `.e\u200Bnv` (macOS HFS+) are the denied files themselves.
    const segments = path.split("/").map(canonicalName);
    if (segments.some((segment) => segment.toLowerCase() === ".git" || GIT_SHORT_NAME.test(segment)))
      return { code: "git_dir" };
    for (const segment of segments) {
      if (SHORT_NAME.test(segment)) return { code: "denied", pattern: SHORT_NAME_PATTERN };
      for (const { pattern, match } of this.#componentMatchers) {
        if (match(segment)) return { code: "denied", pattern };
      }
    }
    const canonical = segments.join("/");
    for (const { pattern, match } of this.#pathMatchers) {
      if (match(path) || match(canonical)) return { code: "denied", pattern };
    }
    return null;
  }

  /** Checks a path as asked and then its real path; never reads the file. */
  async resolve(asked: string): Promise<ResolvedPath | PathRefusal> {
    const docs = this.#inDocs(asked);
    if (docs) {
      const resolved = await docs.policy.resolve(docs.path);
      if (!resolved.ok) return resolved;
      return {
        ...resolved,
        path: docsRepositoryPath(docs.name, resolved.path),
        realRelative: docsRepositoryPath(docs.name, resolved.realRelative),
      };
    }
    const syntax = this.checkSyntax(asked);
    if (!syntax.ok) return syntax;
    const root = await this.realRoot();
    const absolute = syntax.path === "." ? this.root : join(this.root, syntax.path);
    const shown = JSON.stringify(`${this.#shownPrefix}${syntax.path}`);
    let realPath: string;
    try {
      realPath = await realPathOfDeepestExisting(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP")
        return { ok: false, code: "symlink_loop", message: `Refused: ${shown} is a symlink loop.` };
      if (code === DANGLING)
        return {
          ok: false,
          code: "outside_root",
          dangling: true,
          message: `Refused: ${shown} is a symlink (or under one) whose target does not exist.`,
        };
      throw error;
    }
    const realRelative = relative(root, realPath);
    if (realRelative.startsWith("..") || isAbsolute(realRelative))
      return {
        ok: false,
        code: "outside_root",
        dangling: false,
        message: `Refused: ${shown} is a symlink (or under one) whose target is outside the repository.`,
      };
    const realPosix = realRelative.split(sep).join("/");
    if (realPosix !== "") {
      const denied = this.deniedReason(realPosix);
      if (denied)
        return {
          ...denied,
          ok: false,
          viaSymlink: true,
          message: `Refused: ${shown} is a symlink to a path that ${deniedWhy(denied)}`,
        };
    }
    return { ok: true, path: syntax.path, absolute, realPath, realRelative: realPosix };
  }

  /** The docs repository's policy and the path inside it, when `path` is written `name:PATH`. */
  #inDocs(path: string): { name: string; policy: SandboxPolicy; path: string } | undefined {
    if (this.#docs === undefined || typeof path !== "string") return undefined;
    const inside = pathInDocsRepository(this.#docs.name, path);
    return inside === undefined ? undefined : { ...this.#docs, path: inside };
  }
}

/**
 * The write guard of every entry point (edit_article, create_article, `impact mcp`,
 * `impact apply`): a write lands at the real path, so through a symlink (a file, or a
 * directory on the way) the real path must be an article too, not only the path as asked.
 * `isArticle` is the entry point's own rule (the docs globs; `impact edit` allows any file).
 */
export function writeRefusal(
  resolved: ResolvedPath,
  isArticle: (path: string) => boolean,
): { code: "not_article"; viaSymlink: boolean; realRelative: string } | null {
  if (!isArticle(resolved.path))
    return { code: "not_article", viaSymlink: false, realRelative: resolved.realRelative };
  if (resolved.realRelative !== resolved.path && !isArticle(resolved.realRelative))
    return { code: "not_article", viaSymlink: true, realRelative: resolved.realRelative };
  return null;
}

/**
 * Characters some file systems ignore in names (macOS HFS+ drops zero-width and
 * direction marks, so `.g\u200Cit` is `.git` there), and the soft hyphen and BOM.
 */
const IGNORABLE =
  /\u00AD|\u034F|[\u180B-\u180F]|[\u200B-\u200F]|[\u202A-\u202E]|[\u2060-\u206F]|[\uFE00-\uFE0F]|\uFEFF/g;
/** `.git`'s 8.3 short name on Windows (`GIT~1`). */
const GIT_SHORT_NAME = /^git~\d+$/i;
/** Any other 8.3 short name (`ENV~1`, `SERVER~1.PEM`): it may alias a denied file, which cannot be told. */
const SHORT_NAME = /^[^~.]{1,6}~\d{1,6}(?:\.[^.]{0,3})?$/;
const SHORT_NAME_PATTERN = "8.3 short names (NAME~1)";

/**
 * A path component as the file systems that alias names see it: Unicode normalised (NFC),
 * ignorable characters removed, an NTFS stream suffix (`name::$DATA`, `name:stream`) and
 * trailing dots and spaces (dropped by Windows) cut off. Deny patterns match this form.
 */
function canonicalName(name: string): string {
  // Plain ASCII names without a colon, trailing dot or space are their own canonical form.
  if (/^[\x20-\x7e]*$/.test(name) && !name.includes(":") && !/[. ]$/.test(name)) return name;
  let canonical = name.normalize("NFC").replace(IGNORABLE, "");
  const colon = canonical.indexOf(":");
  if (colon > 0) canonical = canonical.slice(0, colon);
  canonical = canonical.replace(/[. ]+$/, "");
  return canonical === "" ? name : canonical;
}

/** Why a denied path is refused, in the words of the model's tool results. */
function deniedWhy(denied: DeniedPath): string {
  return denied.code === "git_dir"
    ? "is inside .git/, which tools cannot touch."
    : `matches the deny pattern "${denied.pattern}"; such files are never opened.`;
}

const DANGLING = "IMPACT_DANGLING_SYMLINK";

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * realpath() of a path that may not exist: the deepest existing ancestor is resolved and
 * the missing rest appended, so a new file under a symlinked directory is judged by
 * where it would really land.
 */
async function realPathOfDeepestExisting(absolute: string): Promise<string> {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      // Synchronous: a tool checks many paths at once (search, listing), and each async
      // realpath is a thread-pool round trip costing far more than the call itself.
      const real = realpathSync.native(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      // A dangling symlink: where a write would land is decided by a target we cannot check.
      if (code === "ENOENT" && isSymlink(current))
        throw Object.assign(new Error("dangling symlink"), { code: DANGLING });
      const parent = dirname(current);
      if (parent === current) throw error;
      missing.push(basename(current));
      current = parent;
    }
  }
}
