import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ChangedFile, ChangedSymbol } from "../../../shared/changeset.js";
import { extractSymbols, type Language, languageOf, loadParsers } from "./extract-symbols.js";

/** One changed file to read symbols from, with its whole text at base and head when known. */
export interface SymbolJob {
  file: ChangedFile;
  before?: string;
  after?: string;
}

/** Turns changed files into the symbols they touched, one list per job, in job order. */
export interface SymbolExtractor {
  /**
   * A hint, as soon as the changed files are known: start loading the parsers of these
   * languages now, so they are ready when `extract` is called. Results never depend on it.
   */
  prepare(languages: Iterable<Language | undefined>): void;
  extract(jobs: SymbolJob[]): Promise<ChangedSymbol[][]>;
  /** Frees what the extractor holds (a worker thread); extract must not be called after. */
  close(): void;
}

/** Extraction on the calling thread; loads the parsers of the changed files' languages only. */
export const inProcessExtractor: SymbolExtractor = {
  prepare() {},
  async extract(jobs) {
    const parsers = await loadParsers(languagesOf(jobs.map((job) => job.file)));
    return jobs.map((job) => extractSymbols({ ...job, parsers }));
  },
  close() {},
};

const WORKER_FILE = new URL("./worker.js", import.meta.url);

/** The languages of changed files, both sides of renames included. */
export function languagesOf(files: readonly ChangedFile[]): (Language | undefined)[] {
  return files.flatMap((file) => [languageOf(file.path), languageOf(file.oldPath ?? file.path)]);
}

/** What the main thread sends the worker: a hint to load parsers, or a batch of jobs. */
export type WorkerRequest = { prepare: (Language | undefined)[] } | { jobs: SymbolJob[] };

/**
 * Extraction on a worker thread that starts loading the TypeScript compiler at once.
 * Compiling the 9 MB compiler and parsing both sides of every changed file is most of the
 * CPU a plan needs besides reading the articles; on its own thread it overlaps with git and
 * with reading the articles instead of following them. TypeScript is loaded on the guess
 * that a TS/JS file changed (the common case); `prepare` then loads the tree-sitter
 * grammars the diff needs, or stops the worker when the diff names no code file at all
 * (a doc-only or config-only change), so its compiling costs no more CPU.
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
  const send = (request: WorkerRequest) => worker.postMessage(request);
  return {
    prepare(languages) {
      if (!alive) return;
      const wanted = [...new Set(languages)].filter((language) => language !== undefined);
      if (wanted.length > 0) return send({ prepare: wanted });
      // Nothing to parse: what little is left (flags, env vars on changed lines) runs here.
      alive = false;
      void worker.terminate();
    },
    extract(jobs) {
      if (jobs.length === 0) return Promise.resolve([]);
      if (!alive || pending) return inProcessExtractor.extract(jobs);
      return new Promise((resolve, reject) => {
        pending = { jobs, resolve, reject };
        worker.ref();
        send({ jobs });
      });
    },
    close() {
      alive = false;
      void worker.terminate();
    },
  };
}
