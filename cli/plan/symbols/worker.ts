import { parentPort } from "node:worker_threads";
import { loadParsers } from "./extract-symbols.js";
import { inProcessExtractor, type WorkerRequest } from "./extractor.js";

// The thread behind startSymbolExtractor: load the parsers it is told the change needs
// while the main thread reads the blobs; then extract the symbols of each batch of jobs it
// is sent.
const port = parentPort;
if (port) {
  port.on("message", (request: WorkerRequest) => {
    if ("prepare" in request) {
      // A failed load is not fatal here: jobs that need the parser then fail in the worker
      // and are redone in-process, where the error is reported as it always was.
      loadParsers(request.prepare).catch(() => {});
      return;
    }
    inProcessExtractor.extract(request.jobs).then(
      (results) => port.postMessage({ results }),
      (error: unknown) => port.postMessage({ error: String(error) }),
    );
  });
}
