import { LineIndex } from "../markdown/lines.js";
import { type Heading, type Outline, sectionTree } from "../markdown/outline.js";
import { blankOut } from "./markdown.js";

/** What one pass over a document read line by line (reST, AsciiDoc) finds. */
export interface LineScan {
  lineCount: number;
  headings: Heading[];
  /** 1-based inclusive line ranges where nothing structural is read. */
  opaque: [number, number][];
  /** The metadata block (a reST field list, AsciiDoc header attributes), if any. */
  metadata?: { startLine: number; endLine: number };
}

/**
 * The outline, opaque offset ranges and readable text of a format whose structure one line
 * scan finds: each format writes its scan, and they share what follows from it.
 */
export function lineScanReaders<Scan extends LineScan>(
  scan: (content: string) => Scan,
  metadataLabel: string,
): {
  outline: (content: string) => Outline;
  opaque: (content: string) => [number, number][];
  readable: (content: string) => string;
} {
  const opaque = (content: string): [number, number][] => {
    const lines = new LineIndex(content);
    return scan(content).opaque.map(([first, last]) => [lines.lineStart(first), lines.lineEnd(last)]);
  };
  return {
    outline: (content) => {
      const found = scan(content);
      const outline: Outline = {
        sections: sectionTree(found.headings, found.lineCount),
        lineCount: found.lineCount,
      };
      if (found.metadata) outline.metadata = { ...found.metadata, label: metadataLabel };
      return outline;
    },
    opaque,
    // Blanks the opaque regions out (offsets and line breaks kept), so that examples are not read.
    readable: (content) => blankOut(content, opaque(content)),
  };
}
