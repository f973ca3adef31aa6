/**
 * One pass over a text finds every term it mentions. The text is cut into runs of letters,
 * digits, `_`, `.`, `/` and `-`; each run, its path suffixes (after a `/`) and its dotted or
 * slashed parts are candidates, looked up in one hash map of all terms. The cost is
 * proportional to the text, whatever the number of terms: never articles × symbols.
 *
 * To keep 80 MB of docs fast, the scan first hashes each run's parts as it reads the
 * characters (no strings made) and checks them against a bitmap holding, for every term,
 * the hash of its longest part. A run that contains a term contains that part, so only runs
 * that pass the bitmap are turned into strings and looked up exactly.
 *
 * Bytes are scanned faster still when every term is long enough to skip over (see
 * `scanBytesSkipping`): only the runs where some term could occur are looked at, with the
 * same bitmap test and exact lookups as above, so the result is the same.
 */
export class ReferenceMatcher {
  private readonly ids = new Map<string, number>();
  private readonly stamps: Int32Array;
  /** The scan in which each term was last seen formatted as code. */
  private readonly codeStamps: Int32Array;
  /** 1 for terms that count only in code formatting (see the constructor). */
  private readonly strict: Uint8Array;
  private readonly bitmap = new Uint32Array(BITMAP_BITS >>> 5);
  private stamp = 0;
  /**
   * For the skipping scan: how far the window may move when its last bytes form a given
   * gram (Wu-Manber), the window's length and the gram's length; undefined when some term
   * is too short for skipping to pay.
   */
  private readonly skip: { shifts: Uint8Array; window: number; gram: number } | undefined;

  /**
   * `terms[i]` is reported as id `i`; duplicate terms report the first id. A term for which
   * `isStrict` holds counts only where the text formats it as code: right after a backtick,
   * quote or opening bracket, right before a backtick, quote or `(`, or as a dotted part
   * (`client.fetch`). Single words (`fetch`, `Client`) are prose otherwise.
   */
  constructor(
    readonly terms: readonly string[],
    isStrict: (term: string) => boolean = () => false,
  ) {
    this.strict = new Uint8Array(terms.length);
    terms.forEach((term, id) => {
      if (!this.ids.has(term)) this.ids.set(term, id);
      if (isStrict(term)) this.strict[id] = 1;
      const hash = termKey(term) & BITMAP_MASK;
      this.bitmap[hash >>> 5]! |= 1 << (hash & 31);
    });
    this.stamps = new Int32Array(terms.length);
    this.codeStamps = new Int32Array(terms.length);
    this.skip = skipTable(terms);
  }

  /** Whether the last scan saw term `id` formatted as code at least once. */
  inCode(id: number): boolean {
    return this.codeStamps[id] === this.stamp;
  }

  get size(): number {
    return this.ids.size;
  }

  /**
   * The ids of the terms mentioned in `text`, each once, in order of first mention. Bytes
   * (UTF-8) scan without decoding: runs are ASCII, so only candidate runs become strings.
   */
  scan(text: string | Uint8Array): number[] {
    const found: number[] = [];
    if (this.ids.size === 0) return found;
    this.stamp += 1;
    if (typeof text === "string") this.scanString(text, found);
    else if (this.skip) this.scanBytesSkipping(text, found, this.skip);
    else this.scanBytes(text, found);
    return found;
  }

  private scanString(text: string, found: number[]): void {
    const bitmap = this.bitmap;
    const length = text.length;
    let index = 0;
    while (index < length) {
      // Skip to the start of a run.
      let code = text.charCodeAt(index);
      while (code >= 128 || TOKEN[code] === 0) {
        index += 1;
        if (index >= length) return;
        code = text.charCodeAt(index);
      }
      const start = index;
      let candidate = false;
      let hash = FNV_OFFSET;
      // The hash of the part without its trailing dashes (`foo-` in `foo-.` is `foo`).
      let settled = FNV_OFFSET;
      let partLength = 0;
      while (index < length) {
        code = text.charCodeAt(index);
        if (code >= 128) break;
        const kind = TOKEN[code]!;
        if (kind === 0) break;
        if (kind === SEPARATOR) {
          if (partLength > 0 && testBit(bitmap, settled)) candidate = true;
          hash = FNV_OFFSET;
          settled = FNV_OFFSET;
          partLength = 0;
        } else {
          hash = Math.imul(hash ^ code, FNV_PRIME);
          if (kind !== DASH) settled = hash;
          partLength += 1;
        }
        index += 1;
      }
      if (partLength > 0 && testBit(bitmap, settled)) candidate = true;
      if (candidate && index - start > 1) {
        const code = isCodeContext(
          start > 0 ? text.charCodeAt(start - 1) : 0,
          index < length ? text.charCodeAt(index) : 0,
        );
        this.exact(text.slice(start, index), found, code);
      }
    }
  }

  // The same loop over bytes; kept separate so each stays monomorphic and fast.
  private scanBytes(bytes: Uint8Array, found: number[]): void {
    const bitmap = this.bitmap;
    const length = bytes.length;
    let index = 0;
    while (index < length) {
      // TOKEN has 256 entries, all 0 above ASCII, so bytes need no range check.
      while (TOKEN[bytes[index]!] === 0) {
        index += 1;
        if (index >= length) return;
      }
      const start = index;
      let candidate = false;
      let hash = FNV_OFFSET;
      let settled = FNV_OFFSET;
      let partLength = 0;
      while (index < length) {
        const code = bytes[index]!;
        const kind = TOKEN[code]!;
        if (kind === 0) break;
        if (kind === SEPARATOR) {
          if (partLength > 0 && testBit(bitmap, settled)) candidate = true;
          hash = FNV_OFFSET;
          settled = FNV_OFFSET;
          partLength = 0;
        } else {
          hash = Math.imul(hash ^ code, FNV_PRIME);
          if (kind !== DASH) settled = hash;
          partLength += 1;
        }
        index += 1;
      }
      if (partLength > 0 && testBit(bitmap, settled)) candidate = true;
      if (candidate && index - start > 1) {
        const code = isCodeContext(start > 0 ? bytes[start - 1]! : 0, index < length ? bytes[index]! : 0);
        this.exact(LATIN1.decode(bytes.subarray(start, index)), found, code);
      }
    }
  }

  /**
   * scanBytes for long terms, visiting a fraction of the bytes (Wu-Manber). A window of
   * `window` bytes slides over the text; every term is at least that long, so where a term
   * starts, the window's last `gram` bytes are a gram of that term's first `window` bytes.
   * `shifts` says, for each gram, how far the window can move without passing such a start
   * (the full `window - gram + 1` for grams no term has, such as any with a space). Where
   * the shift is 0 a term may start at the window's first byte: the run around that byte is
   * checked as scanBytes checks runs, and the scan resumes past the run, since terms never
   * span two runs. Runs are checked in text order, so the ids come in the same order.
   */
  private scanBytesSkipping(
    bytes: Uint8Array,
    found: number[],
    skip: { shifts: Uint8Array; window: number; gram: number },
  ): void {
    const { shifts, window, gram } = skip;
    const length = bytes.length;
    let last = window - 1;
    while (last < length) {
      // The gram's index in base CLASSES, from tables that hold each place's value.
      const pair = SECOND_TO_LAST[bytes[last - 1]!]! + CLASS[bytes[last]!]!;
      const shift = shifts[gram === 3 ? THIRD_TO_LAST[bytes[last - 2]!]! + pair : pair]!;
      if (shift > 0) {
        last += shift;
        continue;
      }
      let start = last - window + 1;
      if (TOKEN[bytes[start]!] === 0) {
        last += 1;
        continue;
      }
      while (start > 0 && TOKEN[bytes[start - 1]!] !== 0) start -= 1;
      let end = start + 1;
      while (end < length && TOKEN[bytes[end]!] !== 0) end += 1;
      // A run shorter than the window holds no term.
      if (end - start >= window) this.checkRun(bytes, start, end, found);
      // The next term starts after this run's end, past at least one byte outside any run.
      last = end + window;
    }
  }

  /** scanBytes' test of one whole run `bytes[start, end)`: the bitmap, then the exact lookups. */
  private checkRun(bytes: Uint8Array, start: number, end: number, found: number[]): void {
    const bitmap = this.bitmap;
    let candidate = false;
    let hash = FNV_OFFSET;
    let settled = FNV_OFFSET;
    let partLength = 0;
    for (let index = start; index < end; index += 1) {
      const code = bytes[index]!;
      const kind = TOKEN[code]!;
      if (kind === SEPARATOR) {
        if (partLength > 0 && testBit(bitmap, settled)) candidate = true;
        hash = FNV_OFFSET;
        settled = FNV_OFFSET;
        partLength = 0;
      } else {
        hash = Math.imul(hash ^ code, FNV_PRIME);
        if (kind !== DASH) settled = hash;
        partLength += 1;
      }
    }
    if (partLength > 0 && testBit(bitmap, settled)) candidate = true;
    if (candidate && end - start > 1) {
      const code = isCodeContext(start > 0 ? bytes[start - 1]! : 0, end < bytes.length ? bytes[end]! : 0);
      this.exact(LATIN1.decode(bytes.subarray(start, end)), found, code);
    }
  }

  /** The exact lookups for one run that passed the bitmap. */
  private exact(token: string, found: number[], codeContext: boolean): void {
    let start = 0;
    let end = token.length;
    while (start < end && (token.charCodeAt(start) === 46 || token.charCodeAt(start) === 47)) start += 1;
    while (end > start && TRAILING.has(token.charCodeAt(end - 1))) end -= 1;
    const run = start > 0 || end < token.length ? token.slice(start, end) : token;
    if (run.length === 0) return;
    this.hit(run, found, codeContext);
    const slash = run.indexOf("/");
    if (slash < 0 && run.indexOf(".") < 0) return;
    // Paths: every suffix after a slash (`./cli/x.ts`, a URL to the file on a forge).
    for (let at = slash; at >= 0; at = run.indexOf("/", at + 1)) this.hit(run.slice(at + 1), found, true);
    // Dotted and slashed parts: `config.loadConfig`, `process.env.NAME`, `--base/--head`.
    for (const part of run.split(/[./]/)) if (part.length > 1) this.hit(part, found, true);
  }

  private hit(token: string, found: number[], codeContext: boolean): void {
    const id = this.ids.get(token);
    if (id === undefined) return;
    if (codeContext) this.codeStamps[id] = this.stamp;
    if (this.stamps[id] !== this.stamp && (codeContext || this.strict[id] === 0)) {
      this.stamps[id] = this.stamp;
      found.push(id);
    }
  }
}

/**
 * The key of a term: the hash of its longest part (split at `.` and `/`), as the scan hashes
 * parts. A run in which the scan finds the term holds that part, so it has this key among its
 * part hashes (see fingerprint).
 */
export function termKey(term: string): number {
  const longest = term.split(/[./]/).reduce((best, part) => (part.length > best.length ? part : best), "");
  return hashOf(longest, 0, longest.length) >>> 0;
}

/**
 * The longest part of `text` as the scan cuts it (runs of letters, digits, `_` and `-`, split
 * at `.` and `/`; trailing dashes not counted): a word an article writing `text` holds, so a
 * rule can ask the article index for it (termKey) before reading articles.
 */
export function longestPart(text: string): string {
  let best = "";
  // Outside a run and at its separators alike, the text splits into parts.
  for (const part of text.split(/[^A-Za-z0-9_-]+/)) {
    const settled = part.replace(/-+$/, "");
    if (settled.length > best.length) best = settled;
  }
  return best;
}

/**
 * The hash of every part of every run in `bytes`, each once, cut and hashed exactly as
 * scanBytes cuts and hashes them (no term set needed). A text in which `scan` finds a term
 * holds `termKey(term)` among these; a text whose fingerprint holds the key of no term
 * needs no scan, which is what the persistent article index rests on.
 */
export function fingerprint(bytes: Uint8Array): Uint32Array {
  const seen = parts;
  seen.reset();
  const length = bytes.length;
  let index = 0;
  while (index < length) {
    while (TOKEN[bytes[index]!] === 0) {
      index += 1;
      if (index >= length) return seen.values();
    }
    let hash = FNV_OFFSET;
    let settled = FNV_OFFSET;
    let partLength = 0;
    while (index < length) {
      const code = bytes[index]!;
      const kind = TOKEN[code]!;
      if (kind === 0) break;
      if (kind === SEPARATOR) {
        if (partLength > 0) seen.add(settled >>> 0);
        hash = FNV_OFFSET;
        settled = FNV_OFFSET;
        partLength = 0;
      } else {
        hash = Math.imul(hash ^ code, FNV_PRIME);
        if (kind !== DASH) settled = hash;
        partLength += 1;
      }
      index += 1;
    }
    if (partLength > 0) seen.add(settled >>> 0);
  }
  return seen.values();
}

/**
 * A set of 32-bit hashes for fingerprint (open addressing, grown at half full), reused from
 * one text to the next: a slot counts only when its stamp is the current text's. The values
 * are written in insertion order into a shared slab, and each text's fingerprint is a view
 * of its stretch of the slab: one small view per article instead of a fresh array (and its
 * buffer) each, which on 20,000 articles cost about as much as the hashing.
 */
class PartSet {
  private slots = new Uint32Array(4096);
  private stamps = new Uint32Array(4096);
  private stamp = 0;
  private slab = new Uint32Array(SLAB_VALUES);
  /** Where the current text's values start in the slab. */
  private start = 0;
  private count = 0;

  reset(): void {
    this.stamp += 1;
    this.count = 0;
    if (this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  add(value: number): void {
    const mask = this.slots.length - 1;
    let slot = Math.imul(value, 0x9e3779b1) >>> 0;
    for (;;) {
      slot &= mask;
      if (this.stamps[slot] !== this.stamp) break;
      if (this.slots[slot] === value) return;
      slot += 1;
    }
    this.stamps[slot] = this.stamp;
    this.slots[slot] = value;
    if (this.start + this.count === this.slab.length) this.newSlab();
    this.slab[this.start + this.count] = value;
    this.count += 1;
    if (this.count * 2 > this.slots.length) this.grow();
  }

  /** The current text's values; later texts never write over them. */
  values(): Uint32Array {
    const view = this.slab.subarray(this.start, this.start + this.count);
    this.start += this.count;
    this.count = 0;
    return view;
  }

  /** A fresh slab (the views of earlier texts keep the old one), the current text's values moved over. */
  private newSlab(): void {
    const slab = new Uint32Array(Math.max(SLAB_VALUES, this.count * 2));
    slab.set(this.slab.subarray(this.start, this.start + this.count));
    this.slab = slab;
    this.start = 0;
  }

  /** A table twice the size, holding this text's values again. */
  private grow(): void {
    this.slots = new Uint32Array(this.slots.length * 2);
    this.stamps = new Uint32Array(this.slots.length);
    this.stamp = 1;
    const mask = this.slots.length - 1;
    for (let index = 0; index < this.count; index += 1) {
      const value = this.slab[this.start + index]!;
      let slot = Math.imul(value, 0x9e3779b1) >>> 0;
      for (;;) {
        slot &= mask;
        if (this.stamps[slot] !== this.stamp) break;
        slot += 1;
      }
      this.stamps[slot] = this.stamp;
      this.slots[slot] = value;
    }
  }
}

/** Values per slab: 1 MB, the fingerprints of a few thousand articles. */
const SLAB_VALUES = 256 * 1024;
const parts = new PartSet();

const BITMAP_BITS = 1 << 22;
const BITMAP_MASK = BITMAP_BITS - 1;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
const WORD = 1;
const SEPARATOR = 2;
const DASH = 3;
/** 0: not in a run; 1: letter, digit or `_`; 2: `.` or `/` (splits parts); 3: `-`. */
const TOKEN = new Uint8Array(256);
for (let code = 0; code < 128; code += 1) {
  const char = String.fromCharCode(code);
  if (/[A-Za-z0-9_]/.test(char)) TOKEN[code] = WORD;
  else if (char === "." || char === "/") TOKEN[code] = SEPARATOR;
  else if (char === "-") TOKEN[code] = DASH;
}
const TRAILING = new Set([45, 46, 47]);

/** Each byte's class for the skip table: 0 outside runs, 1 to CLASSES - 1 for run characters. */
const CLASS = new Uint8Array(256);
let classes = 1;
for (let code = 0; code < 128; code += 1) if (TOKEN[code] !== 0) CLASS[code] = classes++;
const CLASSES = classes;
const SECOND_TO_LAST = Uint32Array.from(CLASS, (value) => value * CLASSES);
const THIRD_TO_LAST = Uint32Array.from(CLASS, (value) => value * CLASSES * CLASSES);
/** Terms shorter than this make the skipping scan no faster than scanBytes. */
const MIN_SKIP_WINDOW = 4;
/** Longer windows would only matter for shifts beyond what a Uint8Array holds. */
const MAX_SKIP_WINDOW = 255;

/**
 * The skipping scan's table (see scanBytesSkipping), or undefined when a term is shorter
 * than MIN_SKIP_WINDOW. Terms with a character outside runs can never be found (every
 * lookup is of a run or a part of one), so they do not shorten the window.
 */
function skipTable(
  terms: readonly string[],
): { shifts: Uint8Array; window: number; gram: number } | undefined {
  const findable = terms.filter((term) => {
    for (let index = 0; index < term.length; index += 1) {
      const code = term.charCodeAt(index);
      if (code >= 128 || TOKEN[code] === 0) return false;
    }
    return true;
  });
  if (findable.length === 0) return undefined;
  let shortest = Number.POSITIVE_INFINITY;
  for (const term of findable) shortest = Math.min(shortest, term.length);
  if (shortest < MIN_SKIP_WINDOW) return undefined;
  const window = Math.min(shortest, MAX_SKIP_WINDOW);
  // Three-byte grams tell more apart, but leave shorter windows too little room to move.
  const gram = window >= 6 ? 3 : 2;
  const shifts = new Uint8Array(CLASSES ** gram).fill(window - gram + 1);
  for (const term of findable) {
    for (let end = gram - 1; end < window; end += 1) {
      let index = 0;
      for (let at = end - gram + 1; at <= end; at += 1) index = index * CLASSES + CLASS[term.charCodeAt(at)]!;
      shifts[index] = Math.min(shifts[index]!, window - 1 - end);
    }
  }
  return { shifts, window, gram };
}
const LATIN1 = new TextDecoder("latin1");

function hashOf(text: string, start: number, end: number): number {
  let hash = FNV_OFFSET;
  let settled = FNV_OFFSET;
  for (let index = start; index < end; index += 1) {
    const code = text.charCodeAt(index);
    hash = Math.imul(hash ^ code, FNV_PRIME);
    if (code !== 45) settled = hash;
  }
  return settled;
}

const CODE_BEFORE = new Set([..."`\"'([{<@$"].map((char) => char.charCodeAt(0)));
const CODE_AFTER = new Set([..."`\"'(["].map((char) => char.charCodeAt(0)));

function isCodeContext(before: number, after: number): boolean {
  return CODE_BEFORE.has(before) || CODE_AFTER.has(after);
}

function testBit(bitmap: Uint32Array, hash: number): boolean {
  const bit = hash & BITMAP_MASK;
  return (bitmap[bit >>> 5]! & (1 << (bit & 31))) !== 0;
}
