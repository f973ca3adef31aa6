import { spawn } from "node:child_process";
import { GitError } from "../../shared/errors.js";
import { OBJECT_READER_IDLE_MS } from "../../shared/limits.js";

/** One object as `git cat-file --batch` answers it. */
export interface GitObject {
  sha: string;
  type: string;
  content: Buffer;
}

/** Reads objects by name (`<sha>`, `<rev>:<path>`, `<rev>^{commit}`); undefined for a name that names none. */
interface ObjectReader {
  read(names: string[]): Promise<(GitObject | undefined)[]>;
}

const objectReaders = new Map<string, ObjectReader>();

/**
 * The repository's object reader: one `git cat-file --batch` process that every object
 * read of a command shares (the change's commits, the root's manifests, the changed files'
 * blobs, the articles of another revision), where each read used to start its own process
 * (about 20 ms of CPU each). Requests are answered in order; the process ends after
 * OBJECT_READER_IDLE_MS without a request, and never keeps the command from exiting. git
 * looks refs and objects up afresh for every name, so a commit made meanwhile is seen.
 */
export function objectReader(repoRoot: string): ObjectReader {
  let reader = objectReaders.get(repoRoot);
  if (!reader) {
    reader = startObjectReader(repoRoot, () => {
      if (objectReaders.get(repoRoot) === reader) objectReaders.delete(repoRoot);
    });
    objectReaders.set(repoRoot, reader);
  }
  return reader;
}

function startObjectReader(repoRoot: string, onEnd: () => void): ObjectReader {
  const child = spawn("git", ["cat-file", "--batch"], { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] });
  const queue: {
    names: string[];
    objects: (GitObject | undefined)[];
    resolve: (objects: (GitObject | undefined)[]) => void;
    reject: (error: unknown) => void;
  }[] = [];
  let ended = false;
  let idle: NodeJS.Timeout | undefined;
  let parts: Buffer[] = [];
  let partsLength = 0;
  /** Bytes needed before the next answer can be read (avoids re-joining a large blob per chunk). */
  let needed = 1;
  let stderr = "";
  // Node's pipes are sockets, which can be unref'd like the process; Bun's pipes cannot.
  const handles = [child, child.stdin, child.stdout, child.stderr] as unknown as {
    ref?(): void;
    unref?(): void;
  }[];
  const end = (error?: unknown) => {
    if (!ended) {
      ended = true;
      clearTimeout(idle);
      onEnd();
      child.stdin.end();
    }
    const why = error ?? new GitError(`git cat-file failed: ${stderr.split("\n")[0] || "it ended early"}`);
    for (const request of queue.splice(0)) request.reject(why);
  };
  const settle = () => {
    if (queue.length > 0) return;
    // Idle: the process must not keep the command alive, and ends if no read follows soon.
    for (const handle of handles) handle.unref?.();
    idle = setTimeout(() => end(), OBJECT_READER_IDLE_MS);
    idle.unref();
  };
  const consume = (pending: Buffer): Buffer => {
    // Each answer is "<sha> <type> <size>\n<bytes>\n", or "<name> missing\n" / "<name> ambiguous\n".
    for (;;) {
      const request = queue[0];
      const newline = pending.indexOf(10);
      if (newline < 0 || request === undefined) {
        needed = pending.length + 1;
        return pending;
      }
      const header = pending.subarray(0, newline).toString("utf8");
      let object: GitObject | undefined;
      if (/ (missing|ambiguous)$/.test(header)) {
        pending = pending.subarray(newline + 1);
      } else {
        const [sha = "", type = "", sizeText] = header.split(" ");
        const stop = newline + 1 + Number(sizeText) + 1;
        if (pending.length < stop) {
          needed = stop;
          return pending;
        }
        object = { sha, type, content: pending.subarray(newline + 1, stop - 1) };
        pending = pending.subarray(stop);
      }
      request.objects.push(object);
      if (request.objects.length === request.names.length) {
        queue.shift();
        request.resolve(request.objects);
        settle();
      }
    }
  };
  child.stdout.on("data", (chunk: Buffer) => {
    parts.push(chunk);
    partsLength += chunk.length;
    if (partsLength < needed) return;
    const rest = consume(parts.length === 1 ? parts[0]! : Buffer.concat(parts, partsLength));
    parts = rest.length > 0 ? [rest] : [];
    partsLength = rest.length;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString("utf8");
  });
  child.on("error", (error) => end(new GitError(`git cat-file failed: ${error.message}`, { cause: error })));
  child.on("close", (code) =>
    end(new GitError(`git cat-file failed (exit ${code}): ${stderr.split("\n")[0] ?? ""}`)),
  );
  child.stdin.on("error", () => {});
  return {
    read(names) {
      if (names.length === 0) return Promise.resolve([]);
      if (ended) return objectReader(repoRoot).read(names);
      clearTimeout(idle);
      for (const handle of handles) handle.ref?.();
      return new Promise((resolve, reject) => {
        queue.push({ names, objects: [], resolve, reject });
        child.stdin.write(`${names.join("\n")}\n`);
      });
    },
  };
}
