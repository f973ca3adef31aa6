import type { Readable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { MAX_MESSAGE_BYTES } from "../../shared/limits.js";

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * MCP's stdio transport (one JSON-RPC message per line), written to survive bad input:
 * a line that is not JSON gets a parse error, one that is not JSON-RPC an invalid-request
 * error, an oversized one an error after it is skipped; the transport keeps reading after
 * each. The end of the input closes it.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #input: Readable;
  readonly #write: (text: string) => void;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** True while skipping the rest of an oversized line. */
  #skipping = false;
  #closed = false;

  constructor(input: Readable, write: (text: string) => void) {
    this.#input = input;
    this.#write = write;
  }

  async start(): Promise<void> {
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onEnd);
    this.#input.on("error", this.#onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#closed) this.#write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("error", this.#onError);
    this.#input.pause();
    this.onclose?.();
  }

  readonly #onEnd = () => {
    void this.close();
  };

  readonly #onError = (error: Error) => {
    this.onerror?.(error);
  };

  readonly #onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10)) {
      const head = data.subarray(0, newline);
      data = data.subarray(newline + 1);
      if (this.#skipping) {
        this.#skipping = false;
        continue;
      }
      const tooLarge = this.#buffered + head.length > MAX_MESSAGE_BYTES;
      this.#chunks.push(head);
      const line = tooLarge ? "" : Buffer.concat(this.#chunks).toString("utf8");
      this.#chunks = [];
      this.#buffered = 0;
      if (tooLarge) this.#replyTooLarge();
      else this.#handleLine(line);
    }
    if (this.#skipping || data.length === 0) return;
    this.#chunks.push(data);
    this.#buffered += data.length;
    if (this.#buffered > MAX_MESSAGE_BYTES) {
      this.#chunks = [];
      this.#buffered = 0;
      this.#skipping = true;
      this.#replyTooLarge();
    }
  };

  #replyTooLarge(): void {
    this.#reply(
      null,
      INVALID_REQUEST,
      `Request too large: messages are limited to ${MAX_MESSAGE_BYTES} bytes.`,
    );
  }

  #handleLine(raw: string): void {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.#reply(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      this.#reply(
        typeof id === "string" || typeof id === "number" ? id : null,
        INVALID_REQUEST,
        "Invalid request: not a JSON-RPC 2.0 message.",
      );
      return;
    }
    this.onmessage?.(parsed.data);
  }

  #reply(id: string | number | null, code: number, message: string): void {
    // JSON-RPC answers an unidentifiable request with id null, which the SDK's types leave out.
    if (!this.#closed) this.#write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  }
}
