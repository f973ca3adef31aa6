import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ChangedFile, ChangedSymbol } from "../../../shared/changeset.js";
import { extractSymbols, languageOf, loadParsers } from "./extract-symbols.js";

/** One changed file to read symbols from, with its whole text at base and head when known. */
export interface SymbolJob {
  file: ChangedFile;
  before?: string;
  after?: string;
}

/** Turns changed files into the symbols they touched, one list per job, in job order. */
export interface SymbolExtractor {
  extract(jobs: SymbolJob[]): Promise<ChangedSymbol[][]>;
  /** Frees what the extractor holds (a worker thread); extract must not be called after. */
  close(): void;
}

/** Extraction on the calling thread; loads the parsers of the changed files' languages only. */
export const inProcessExtractor: SymbolExtractor = {
  async extract(jobs) {
    const parsers = await loadParsers(
      jobs.flatMap((job) => [languageOf(job.file.path), languageOf(job.file.oldPath ?? job.file.path)]),
    );
    return jobs.map((job) => extractSymbols({ ...job, parsers }));
  },
  close() {},
};

const WORKER_FILE = new URL("./worker.js", import.meta.url);

/**
 * Extraction on a worker thread that starts loading the TypeScript compiler at once (the
 * tree-sitter grammars of other languages load there when a change needs them).
 * Compiling the 9 MB compiler and parsing both sides of every changed file is most of the
 * CPU a plan needs besides reading the articles; on its own thread it overlaps with git
 * and with reading the articles instead of following them. TypeScript is loaded on the
 * guess that a TS/JS file changed (the common case); when none did, that load runs on the
 * other core and is thrown away.
 *
 * The worker runs compiled JavaScript; from TypeScript sources (the tests) there is none,
 * and extraction stays in-process.
 */
export function startSymbolExtractor(): SymbolExtractor {
  if (!existsSync(fileURLToPath(WORKER_FILE))) return inProcessExtractor;
  const worker = new Worker(WORKER_FILE);
  // Until a job is pending, the worker must not keep the process alive.
  worker.unref();
  let alive = true;
  let pending:
    | { jobs: SymbolJob[]; resolve: (symbols: ChangedSymbol[][]) => void; reject: (error: unknown) => void }
    | undefined;
  // The worker only saves time: whatever goes wrong there (TypeScript missing, a crash, an
  // extraction error) is done again in-process, which succeeds or fails exactly as before.
  const fallBack = () => {
    const job = pending;
    pending = undefined;
    if (job) inProcessExtractor.extract(job.jobs).then(job.resolve, job.reject);
  };
  worker.on("message", (message: { symbols: ChangedSymbol[][] } | { error: string }) => {
    worker.unref();
    if ("error" in message) return fallBack();
    const job = pending;
    pending = undefined;
    job?.resolve(message.symbols);
  });
  const stop = () => {
    alive = false;
    fallBack();
  };
  worker.on("error", stop);
  worker.on("exit", stop);
  return {
    extract(jobs) {
      if (!alive || pending) return inProcessExtractor.extract(jobs);
      return new Promise((resolve, reject) => {
        pending = { jobs, resolve, reject };
        worker.ref();
        worker.postMessage(jobs);
      });
    },
    close() {
      alive = false;
      void worker.terminate();
    },
  };
}
