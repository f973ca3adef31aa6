/**
 * What a call of a function or method must write: each parameter's name and default, in
 * order, without the types (`def \0(url: URL | str, *, timeout=None) -> Response` →
 * `url,*,timeout=None`). Two signatures with the same call shape differ in their types only
 * (annotations added or narrowed): a page quoting the function's calls stays true. Undefined
 * when the signature has no parameter list after the blanked name.
 */
export function callShape(signature: string): string | undefined {
  const name = signature.indexOf("\u0000");
  const open = signature.indexOf("(", afterGenerics(signature, name < 0 ? 0 : name + 1));
  if (open < 0) return undefined;
  const parameters: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let at = open; at < signature.length; at += 1) {
    const change = depthChange(signature, at);
    depth += change;
    if (change < 0 && depth === 0) {
      parameters.push(signature.slice(start, at));
      return parameters.map(parameterShape).filter(Boolean).join(",");
    }
    if (signature[at] === "," && depth === 1) {
      parameters.push(signature.slice(start, at));
      start = at + 1;
    }
  }
  return undefined;
}

/** A parameter as a call writes it: its leading name (after `*`, `&`, `...`, `mut`, modifiers) and default. */
function parameterShape(parameter: string): string {
  const text = parameter.trim();
  const lead =
    /^(?:(?:readonly|public|private|protected|override|mut)\s+)*([*&.]*)\s*(?:mut\s+)?([A-Za-z_$][\w$]*)?/.exec(
      text,
    );
  const defaultAt = defaultStart(text);
  const fallback = defaultAt < 0 ? "" : `=${text.slice(defaultAt + 1).trim()}`;
  return `${lead?.[1] ?? ""}${lead?.[2] ?? ""}${fallback}`;
}

/** The index of the `=` that starts a parameter's default (not `==`, `=>`, `<=`, `>=`, `!=`), outside brackets. */
function defaultStart(text: string): number {
  let depth = 0;
  for (let at = 0; at < text.length; at += 1) {
    depth += depthChange(text, at);
    if (
      text[at] === "=" &&
      depth === 0 &&
      text[at + 1] !== "=" &&
      text[at + 1] !== ">" &&
      !"=<>!".includes(text[at - 1] ?? "")
    )
      return at;
  }
  return -1;
}

/** How the character at `at` changes the bracket depth: an opening bracket +1, a closing one -1 (the `>` of `=>` and `->` is none). */
function depthChange(text: string, at: number): number {
  const char = text[at];
  if (char === "(" || char === "[" || char === "{" || char === "<") return 1;
  if (char === ")" || char === "]" || char === "}" || (char === ">" && !"=-".includes(text[at - 1] ?? "")))
    return -1;
  return 0;
}

/** Where the parameter list may start: past a generic parameter list right after the name (`<F: Fn(u32)>`). */
function afterGenerics(signature: string, from: number): number {
  let at = from;
  while (signature[at] === " ") at += 1;
  if (signature[at] !== "<") return from;
  let depth = 0;
  for (; at < signature.length; at += 1) {
    const char = signature[at]!;
    if (char === "<") depth += 1;
    else if (char === ">" && signature[at - 1] !== "-" && signature[at - 1] !== "=") {
      depth -= 1;
      if (depth === 0) return at + 1;
    }
  }
  return from;
}
