/**
 * Line bookkeeping shared by the outline and the edit engine. A line ends at "\n" (a
 * preceding "\r" belongs to the line ending), so line numbers agree with git and with
 * what `read_file` shows. Lines are 1-based.
 */
export class LineIndex {
  /** Offset of the first character of each line; starts[0] is line 1. */
  readonly starts: number[];
  readonly content: string;

  constructor(content: string) {
    this.content = content;
    const starts = [0];
    let at = content.indexOf("\n");
    while (at !== -1) {
      starts.push(at + 1);
      at = content.indexOf("\n", at + 1);
    }
    // A final newline does not open another line.
    if (starts.length > 1 && starts[starts.length - 1] === content.length) starts.pop();
    this.starts = starts;
  }

  get lineCount(): number {
    return this.content.length === 0 ? 0 : this.starts.length;
  }

  /** 1-based line holding `offset` (an offset at the very end belongs to the last line). */
  lineAt(offset: number): number {
    const starts = this.starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }

  /** Offset of the first character of `line`. */
  lineStart(line: number): number {
    if (line > this.starts.length) return this.content.length;
    return this.starts[line - 1] ?? 0;
  }

  /** Offset just after `line`, its line ending included. */
  lineEnd(line: number): number {
    return line >= this.starts.length ? this.content.length : this.starts[line]!;
  }

  /** The text of `line` without its line ending. */
  lineText(line: number): string {
    return stripEol(this.content.slice(this.lineStart(line), this.lineEnd(line)));
  }

  /** The text of `line` as a reader of the document takes it: a byte order mark opening the file is no text. */
  readText(line: number): string {
    const text = this.lineText(line);
    return line === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

function stripEol(line: string): string {
  if (line.endsWith("\r\n")) return line.slice(0, -2);
  if (line.endsWith("\n")) return line.slice(0, -1);
  return line;
}

/** The file's dominant line ending: CRLF when most line endings are CRLF, else LF. */
export function dominantEol(content: string): "\n" | "\r\n" {
  let lf = 0;
  let crlf = 0;
  let at = content.indexOf("\n");
  // Sampling the first thousand endings is plenty to tell the style.
  while (at !== -1 && lf + crlf < 1000) {
    if (at > 0 && content.charCodeAt(at - 1) === 13) crlf++;
    else lf++;
    at = content.indexOf("\n", at + 1);
  }
  return crlf > lf ? "\r\n" : "\n";
}

/** Rewrites every line ending of `text` to `eol`. */
export function withEol(text: string, eol: "\n" | "\r\n"): string {
  const lf = text.replace(/\r\n/g, "\n");
  return eol === "\n" ? lf : lf.replace(/\n/g, "\r\n");
}
