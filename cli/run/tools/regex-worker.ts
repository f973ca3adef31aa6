import { Worker } from "node:worker_threads";

/**
 * Matches one regex over lines in a worker thread, so a pattern that backtracks for ever
 * blocks neither the event loop (timers, signals, the other articles) nor the run: past its
 * deadline the worker is terminated, which stops the match wherever it is.
 */
const SOURCE = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", ({ source, files, limit }) => {
  const regex = new RegExp(source);
  let left = limit;
  const hits = files.map((lines) => {
    const found = [];
    for (let i = 0; i < lines.length && left > 0; i++) {
      if (regex.test(lines[i])) { found.push(i); left -= 1; }
    }
    return found;
  });
  parentPort.postMessage(hits);
});
`;

export type RegexScan = { ok: true; hits: number[][] } | { ok: false; reason: "timeout" | "aborted" };

export class RegexWorker {
  #worker: Worker | undefined;

  /**
   * Line indexes matching `source` in each file's lines, at most `limit` in all; stops
   * (and reports `timeout`) after `deadlineMs`, or `aborted` when the signal fires.
   */
  scan(
    source: string,
    files: string[][],
    limit: number,
    deadlineMs: number,
    signal: AbortSignal,
  ): Promise<RegexScan> {
    // An abort that came while the caller read its files fires no event any more.
    if (signal.aborted) return Promise.resolve({ ok: false, reason: "aborted" });
    this.#worker ??= new Worker(SOURCE, { eval: true });
    const worker = this.#worker;
    return new Promise((resolve, reject) => {
      const finish = (result: RegexScan | Error, stop: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        if (stop) this.close();
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const onMessage = (hits: number[][]) => finish({ ok: true, hits }, false);
      const onError = (error: Error) => finish(error, true);
      const onAbort = () => finish({ ok: false, reason: "aborted" }, true);
      const timer = setTimeout(() => finish({ ok: false, reason: "timeout" }, true), Math.max(1, deadlineMs));
      signal.addEventListener("abort", onAbort, { once: true });
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.postMessage({ source, files, limit });
    });
  }

  /** Stops the worker (a running match included); the next scan starts a fresh one. */
  close(): void {
    void this.#worker?.terminate();
    this.#worker = undefined;
  }
}
