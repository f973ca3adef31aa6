/**
 * The one place that makes text written by others (file names, model evidence, reasons and
 * summaries, audit fields) safe to show: as HTML, as inert Markdown on GitHub, and as
 * printable text on a terminal or in a CI log. Every renderer goes through these functions.
 */

/** Line breaks in any of the spellings a Markdown parser, a browser or a terminal honours. */
const LINE_BREAKS = /\r\n|[\r\n\v\f\u0085\u2028\u2029]/g;
/** C0 and C1 control characters (tab, CR and LF included), and DEL. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
/**
 * Invisible format characters that reorder or hide text: zero-width characters, bidi
 * embeddings, overrides and isolates, the word joiner and the byte order mark.
 */
const INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;
/** A zero-width space: breaks GitHub's mention, reference and autolink patterns invisibly. */
const BREAK = "\u200b";

/** Escapes the five characters that are special in HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * One line of plain text: every line break becomes a space, other control and invisible
 * format characters are removed, runs of spaces collapse and the ends are trimmed.
 */
export function oneLine(text: string): string {
  return text
    .replace(LINE_BREAKS, " ")
    .replace(/\t/g, " ")
    .replace(CONTROL, "")
    .replace(INVISIBLE, "")
    .replace(/ {2,}/g, " ")
    .trim();
}

/**
 * Text as inert Markdown for GitHub, on one line: no HTML, no emphasis, links, images,
 * tables or math; `@mentions`, `#123` and `owner/repo#123` references and bare URLs are
 * broken with a zero-width space so GitHub neither notifies, cross-links nor autolinks.
 * Safe inside a table cell and inside the HTML blocks of a comment.
 */
export function inertMarkdown(text: string): string {
  return (
    oneLine(text)
      // Markdown punctuation that can start a construct anywhere in a line.
      .replace(/[\\`*[\]~$]/g, (character) => `\\${character}`)
      // An underscore inside a word (DEFAULT_PORT) cannot start emphasis; others are escaped.
      .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, "\\_")
      // GitHub's own syntax: mentions (and emails), issue references, autolinked URLs.
      .replace(/@/g, `@${BREAK}`)
      .replace(/#(?=\d)/g, `#${BREAK}`)
      .replace(/\b(GH)-(?=\d)/gi, `$1-${BREAK}`)
      .replace(/:\/\//g, `:${BREAK}//`)
      .replace(/www\./gi, (match) => `${match.slice(0, 3)}${BREAK}.`)
      // HTML and table syntax as entities, last so no break lands inside one (a backslash
      // does not protect a pipe in every context).
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/\|/g, "&#124;")
  );
}

/**
 * Text that prints as one line on a terminal or in a CI log, whatever it holds: control
 * characters (newline, CR, escape sequences, DEL, C1) and invisible format characters are
 * shown as `\n`, `\r`, `\t` or `\xNN`/`\uNNNN`, and a backslash as `\\`, so the shown text
 * maps back to exactly one string. A new line cannot start inside it, and a leading `::`
 * is shown as `\x3a:`, so a file name cannot inject a `::workflow-command` into a GitHub
 * Actions log (even at the start of a line) nor rewrite the terminal.
 */
export function printable(text: string): string {
  const shown = text.replace(
    /[\\\u0000-\u001f\u007f-\u009f]|[\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g,
    (character) => {
      switch (character) {
        case "\\":
          return "\\\\";
        case "\n":
          return "\\n";
        case "\r":
          return "\\r";
        case "\t":
          return "\\t";
        default: {
          const code = character.charCodeAt(0);
          return code <= 0xff
            ? `\\x${code.toString(16).padStart(2, "0")}`
            : `\\u${code.toString(16).padStart(4, "0")}`;
        }
      }
    },
  );
  return shown.startsWith("::") ? `\\x3a${shown.slice(1)}` : shown;
}

/**
 * Multi-line text (a diff, a file excerpt) for a code block: tabs, line feeds and a CR
 * right before a line feed stay; every other control character is shown as its Unicode
 * control picture (␛ for escape, ␍ for a lone CR; C1 controls and Unicode line separators
 * as �), so the block cannot end early in a
 * Markdown renderer nor drive a terminal.
 */
export function printableBlock(text: string): string {
  return text.replace(
    /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029]/g,
    (character) => {
      const code = character.charCodeAt(0);
      if (code < 0x20) return String.fromCharCode(0x2400 + code);
      return code === 0x7f ? "\u2421" : "\ufffd";
    },
  );
}

/**
 * The message of a GitHub Actions workflow command (`::warning …::MESSAGE`), escaped as the
 * runner decodes it: `%` → `%25`, CR → `%0D`, LF → `%0A`, so the message stays on its line and
 * cannot start a command of its own. Other control and invisible format characters are removed.
 */
function workflowCommandMessage(text: string): string {
  return text
    .replace(/%/g, "%25")
    .replace(/\r/g, "%0D")
    .replace(/\n/g, "%0A")
    .replace(CONTROL, "")
    .replace(INVISIBLE, "");
}

/**
 * A property value of a workflow command (`file=…,line=…`): escaped as a message, and `:` →
 * `%3A`, `,` → `%2C`, so a value cannot end the property list or add a property.
 */
function workflowCommandProperty(text: string): string {
  return workflowCommandMessage(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One workflow command line: `::NAME key=value,…::message`, every part escaped. */
export function workflowCommand(
  name: string,
  properties: Record<string, string | number | undefined>,
  message: string,
): string {
  const list = Object.entries(properties)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${workflowCommandProperty(String(value))}`)
    .join(",");
  return `::${name}${list ? ` ${list}` : ""}::${workflowCommandMessage(message)}`;
}

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w./#@+:=,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
