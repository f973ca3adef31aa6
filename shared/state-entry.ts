import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The envelope of every file Impact keeps as state (its caches): one header line, then the
 * payload. The header names the envelope, the cache, the entry's version and a keyed MAC
 * (HMAC-SHA256 under a secret that never lives in the repository) over all of them, the
 * entry's name and the payload. An entry is trusted only when its MAC checks out, so a file
 * the product did not write (committed, copied in, renamed from another key) is never used.
 *
 * The header is padded to a multiple of 8 bytes, so a binary payload that needs aligned
 * reads (the article index's 32-bit hashes) stays aligned after it.
 */
export const STATE_ENTRY_MAGIC = "impact-state/1";

/** What an entry is, besides its bytes: all of it goes into the MAC. */
export interface StateEntryLabel {
  /** The cache: `results`, `articles`, `history`, `declarations`. */
  kind: string;
  /** The cache's format and Impact's version: another version's entries are ignored. */
  version: string;
  /** The entry's name in its cache (its key). */
  name: string;
}

const WORD = /^[\x21-\x7e]+$/;

function mac(secret: Uint8Array, label: StateEntryLabel, payload: Uint8Array): Buffer {
  return createHmac("sha256", secret)
    .update(`${STATE_ENTRY_MAGIC}\0${label.kind}\0${label.version}\0${label.name}\0`)
    .update(payload)
    .digest();
}

/** The entry's bytes: the header line (with the MAC) followed by the payload. */
export function sealStateEntry(
  secret: Uint8Array,
  label: StateEntryLabel,
  payload: string | Uint8Array,
): Buffer {
  if (!WORD.test(label.kind) || !WORD.test(label.version))
    throw new Error("bug: a state label holds a space");
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload;
  const fields = `${STATE_ENTRY_MAGIC} ${label.kind} ${label.version} ${mac(secret, label, body).toString("hex")}`;
  const padded = fields.padEnd(Math.ceil((fields.length + 1) / 8) * 8 - 1, " ");
  return Buffer.concat([Buffer.from(`${padded}\n`, "latin1"), body]);
}

/** An entry's header fields and payload, unchecked (the bot keeps entries it cannot verify as opaque bytes). */
export function splitStateEntry(
  file: Buffer,
): { kind: string; version: string; mac: string; payload: Buffer } | undefined {
  const newline = file.indexOf(10);
  if (newline < 0 || newline > 512) return undefined;
  const [magic, kind, version, digest] = file.toString("latin1", 0, newline).trimEnd().split(" ");
  if (magic !== STATE_ENTRY_MAGIC || !kind || !version || !digest || !/^[0-9a-f]{64}$/.test(digest)) {
    return undefined;
  }
  return { kind, version, mac: digest, payload: file.subarray(newline + 1) };
}

/**
 * The payload of an entry written under `secret` with this very label; undefined for
 * anything else (no envelope, another cache, version or name, a MAC that does not match).
 */
export function openStateEntry(secret: Uint8Array, label: StateEntryLabel, file: Buffer): Buffer | undefined {
  const split = splitStateEntry(file);
  if (!split || split.kind !== label.kind || split.version !== label.version) return undefined;
  const expected = mac(secret, label, split.payload);
  const given = Buffer.from(split.mac, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected) ? split.payload : undefined;
}
