import { parentPort } from "node:worker_threads";
import { loadTypeScript } from "./extract-symbols.js";
import { inProcessExtractor, type SymbolJob } from "./extractor.js";

// The thread behind startSymbolExtractor: compile TypeScript now, while the main thread
// asks git for the change, then extract symbols for each batch of jobs it is sent.
const port = parentPort;
if (port) {
  port.on("message", (jobs: SymbolJob[]) => {
    inProcessExtractor.extract(jobs).then(
      (symbols) => port.postMessage({ symbols }),
      (error: unknown) => port.postMessage({ error: String(error) }),
    );
  });
  // A failed load is not fatal here: jobs that need TypeScript then fail in the worker and
  // are redone in-process, where the error is reported as it always was.
  await loadTypeScript().catch(() => {});
}
