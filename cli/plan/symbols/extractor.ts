import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ChangedFile, ChangedSymbol } from "../../../shared/changeset.js";
import {
  extractFileSymbols,
  type KnownDeclarations,
  type Language,
  languageOf,
  loadParsers,
} from "./extract-symbols.js";

/** One changed file to read symbols from, with its whole text at base and head when known. */
export interface SymbolJob {
  file: ChangedFile;
  before?: string;
  after?: string;
  /** The compact declarations of a side read before (the declaration cache): that side is not parsed. */
  known?: KnownDeclarations | undefined;
}

/** What one job yields: its symbols, and the compact declarations of each whole side it parsed. */
interface SymbolResult {
  symbols: ChangedSymbol[];
  parsed: KnownDeclarations;
  /** Why a side's declarations were not read (too deeply nested), when so. */
  warning?: string | undefined;
}

/** Turns changed files into the symbols they touched, one list per job, in job order. */
export interface SymbolExtractor {
  /**
   * A hint, as soon as the changed files are known: start loading the parsers of these
   * languages now, so they are ready when `extract` is called. Results never depend on it.
   */
  prepare(languages: Iterable<Language | undefined>): void;
  extract(jobs: SymbolJob[]): Promise<SymbolResult[]>;
  /** Frees what the extractor holds (a worker thread); extract must not be called after. */
  close(): void;
}

/** Extraction on the calling thread; loads the parsers of the changed files' languages only. */
export const inProcessExtractor: SymbolExtractor = {
  prepare() {},
  async extract(jobs) {
    const parsers = await loadParsers(languagesToParse(jobs));
    return jobs.map((job) => extractFileSymbols({ ...job, parsers }));
  },
  close() {},
};

const WORKER_FILE = new URL("./worker.js", import.meta.url);

/** The languages of changed files, both sides of renames included. */
export function languagesOf(files: readonly ChangedFile[]): (Language | undefined)[] {
  return files.flatMap((file) => [languageOf(file.path), languageOf(file.oldPath ?? file.path)]);
}

/** The languages of the sides of these jobs that are not known already: what extraction must parse. */
function languagesToParse(jobs: readonly SymbolJob[]): (Language | undefined)[] {
  return jobs.flatMap(({ file, known }) => [
    known?.after ? undefined : languageOf(file.path),
    known?.before ? undefined : languageOf(file.oldPath ?? file.path),
  ]);
}

/** What the main thread sends the worker: a hint to load parsers, or a batch of jobs. */
export type WorkerRequest = { prepare: (Language | undefined)[] } | { jobs: SymbolJob[] };

/**
 * Extraction on a worker thread, started once the change is known to touch code
 * (`prepare` with at least one language): parsing both sides of every changed file is most
 * of the CPU a plan needs besides reading the articles, and on its own thread it overlaps
 * with reading the articles instead of following them. A change that names no code file
 * (a doc-only or config-only change, the most common pull request) starts no thread at
 * all. The worker loads the JS/TS parser at once, then the tree-sitter grammars `prepare`
 * names.
 *
 * The worker runs compiled JavaScript; from TypeScript sources (the tests) there is none,
 * and extraction stays in-process.
 */
export function startSymbolExtractor(): SymbolExtractor {
  if (!existsSync(fileURLToPath(WORKER_FILE))) return inProcessExtractor;
  let worker: Worker | undefined;
  let alive = true;
  let pending:
    | { jobs: SymbolJob[]; resolve: (results: SymbolResult[]) => void; reject: (error: unknown) => void }
    | undefined;
  // The worker only saves time: whatever goes wrong there (a parser missing, a crash, an
  // extraction error) is done again in-process, which succeeds or fails exactly as before.
  const fallBack = () => {
    const job = pending;
    pending = undefined;
    if (job) inProcessExtractor.extract(job.jobs).then(job.resolve, job.reject);
  };
  const start = (): Worker => {
    const started = new Worker(WORKER_FILE);
    // Until a job is pending, the worker must not keep the process alive.
    started.unref();
    started.on("message", (message: { results: SymbolResult[] } | { error: string }) => {
      started.unref();
      if ("error" in message) return fallBack();
      const job = pending;
      pending = undefined;
      job?.resolve(message.results);
    });
    const stop = () => {
      alive = false;
      fallBack();
    };
    started.on("error", stop);
    started.on("exit", stop);
    return started;
  };
  const stop = () => {
    alive = false;
    if (worker) void worker.terminate();
  };
  return {
    prepare(languages) {
      if (!alive) return;
      const wanted = [...new Set(languages)].filter((language) => language !== undefined);
      // Nothing to parse: what little is left (flags, env vars on changed lines) runs here.
      if (wanted.length === 0) return stop();
      worker ??= start();
      worker.postMessage({ prepare: wanted } satisfies WorkerRequest);
    },
    extract(jobs) {
      if (jobs.length === 0) return Promise.resolve([]);
      if (!alive || !worker || pending) return inProcessExtractor.extract(jobs);
      const running = worker;
      return new Promise((resolve, reject) => {
        pending = { jobs, resolve, reject };
        running.ref();
        running.postMessage({ jobs } satisfies WorkerRequest);
      });
    },
    close: stop,
  };
}
