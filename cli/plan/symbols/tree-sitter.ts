import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Node, Parser } from "web-tree-sitter";
import type { SymbolKind } from "../../../shared/changeset.js";
import { blankName, type Declaration, normalise } from "./declarations.js";

/** How one node type of a grammar becomes a declaration. */
interface NodeRule {
  /** The kind, or undefined when this node is not a declaration after all (then its children are read). */
  kind: SymbolKind | ((node: Node, inType: boolean) => SymbolKind | undefined);
  /** The name nodes (several for `const a, b = …`); default: the `name` field. */
  names?: (node: Node) => (Node | null | undefined)[];
  /** The field holding the body; `false`: the whole declaration is its signature. Default `body`. */
  body?: string | false;
  /** Members are declared in its body, with paths under its name (classes, traits, modules). */
  container?: boolean;
  /** Only a container: names the path of its members but is no declaration itself (Rust `impl`). */
  containerOnly?: boolean;
  /** The path its own members and itself hang under, instead of the enclosing one (Go methods: the receiver type). */
  parentOf?: (node: Node) => string | undefined;
}

/** What the generic reader needs to know about one tree-sitter grammar. */
export interface GrammarSpec {
  /** The grammar's file in @vscode/tree-sitter-wasm (`tree-sitter-<name>.wasm`). */
  wasm: string;
  rules: Record<string, NodeRule>;
  /** Node types that wrap one declaration and belong to its segment (Python's decorated definitions). */
  wrappers?: string[];
  /** Sibling node types directly above a declaration that belong to its segment (comments, attributes). */
  leading: string[];
  /** A member that is not part of the file's interface (a `private` modifier). */
  hidden?: (node: Node) => boolean;
}

type WebTreeSitter = typeof import("web-tree-sitter");

let runtime: Promise<WebTreeSitter> | undefined;
const parsers = new Map<string, Promise<Parser>>();

/**
 * The parser for one grammar, loaded on first use and kept: the runtime and each grammar's
 * WASM come from the installed packages (nothing is downloaded), and a grammar costs tens to
 * hundreds of milliseconds to compile, so only the languages a change touches are loaded.
 */
export function loadGrammar(spec: GrammarSpec): Promise<Parser> {
  let parser = parsers.get(spec.wasm);
  if (!parser) {
    parser = (async () => {
      runtime ??= import("web-tree-sitter").then(async (module) => {
        await module.Parser.init();
        return module;
      });
      const { Parser: ParserClass, Language } = await runtime;
      const grammar = await Language.load(join(grammarFolder(), spec.wasm));
      const created = new ParserClass();
      created.setLanguage(grammar);
      return created;
    })();
    // A failed load is retried next time instead of being remembered.
    parser.catch(() => parsers.delete(spec.wasm));
    parsers.set(spec.wasm, parser);
  }
  return parser;
}

function grammarFolder(): string {
  const manifest = createRequire(import.meta.url).resolve("@vscode/tree-sitter-wasm/package.json");
  return join(dirname(manifest), "wasm");
}

/** The declarations of one file, read with a loaded grammar. */
export function treeSitterDeclarations(parser: Parser, spec: GrammarSpec, text: string): Declaration[] {
  if (text === "") return [];
  const tree = parser.parse(text);
  if (!tree) return [];
  try {
    const declarations: Declaration[] = [];
    walk(spec, text, tree.rootNode, undefined, false, declarations);
    return declarations;
  } finally {
    // Trees live in WASM memory, not on the JavaScript heap: free them explicitly.
    tree.delete();
  }
}

function walk(
  spec: GrammarSpec,
  text: string,
  node: Node,
  parent: string | undefined,
  inType: boolean,
  into: Declaration[],
): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    const rule = spec.rules[child.type];
    const kind = rule && (typeof rule.kind === "function" ? rule.kind(child, inType) : rule.kind);
    if (!rule || !kind) {
      walk(spec, text, child, parent, inType, into);
      continue;
    }
    const owner = rule.parentOf?.(child) ?? parent;
    const bodyField = rule.body === undefined ? "body" : rule.body;
    const body = bodyField ? child.childForFieldName(bodyField) : null;
    const names = (rule.names ? rule.names(child) : [child.childForFieldName("name")]).filter(
      (name): name is Node => !!name,
    );
    if (!rule.containerOnly) {
      for (const nameNode of names) {
        // A container's signature is its head (up to the members); a leaf without a body is all signature.
        const signatureEnd = body ? body.startIndex : child.endIndex;
        into.push(
          declarationOf(
            spec,
            text,
            child,
            nameNode.text,
            kind,
            owner,
            signatureEnd,
            rule.container ? null : body,
          ),
        );
      }
    }
    if (rule.container && body) {
      const name = names[0]?.text;
      walk(spec, text, body, name ? (owner ? `${owner}::${name}` : name) : owner, true, into);
    }
  }
}

function declarationOf(
  spec: GrammarSpec,
  text: string,
  node: Node,
  name: string,
  kind: SymbolKind,
  parent: string | undefined,
  signatureEnd: number,
  body: Node | null,
): Declaration {
  const wrapper = wrapperOf(spec, node);
  const hidden = spec.hidden?.(node) ?? false;
  return {
    name,
    kind,
    path: parent ? `${parent}::${name}` : name,
    line: node.startPosition.row + 1,
    startLine: leadingStart(spec, text, wrapper) + 1,
    endLine: wrapper.endPosition.row + (wrapper.endPosition.column === 0 ? 0 : 1),
    signature: blankName(text.slice(wrapper.startIndex, signatureEnd), name),
    body: body ? normalise(text.slice(body.startIndex, body.endIndex)) : "",
    ...(hidden ? { hidden: true } : {}),
  };
}

/**
 * The node whose extent is the declaration's: a wrapper around this one declaration alone
 * (`@decorator def`, Go's `type X struct`), else the node itself.
 */
function wrapperOf(spec: GrammarSpec, node: Node): Node {
  const parent = node.parent;
  if (!(parent && spec.wrappers?.includes(parent.type))) return node;
  const alike = parent.namedChildren.filter((child) => child?.type === node.type).length;
  return alike === 1 ? parent : node;
}

/** The 0-based first row of a declaration's segment: comments and attributes directly above it. */
function leadingStart(spec: GrammarSpec, text: string, node: Node): number {
  let row = node.startPosition.row;
  for (let sibling = node.previousNamedSibling; sibling; sibling = sibling.previousNamedSibling) {
    if (!spec.leading.includes(sibling.type) || sibling.endPosition.row < row - 1) break;
    // A trailing comment on the line of the statement before is not this declaration's.
    const lineStart = text.lastIndexOf("\n", sibling.startIndex - 1) + 1;
    if (text.slice(lineStart, sibling.startIndex).trim() !== "") break;
    row = sibling.startPosition.row;
  }
  return row;
}

/** Whether a declaration carries a `private` modifier among its direct children of the given types. */
export function hasPrivateModifier(node: Node, modifierTypes: string[]): boolean {
  for (const child of node.namedChildren) {
    if (child && modifierTypes.includes(child.type) && /\bprivate\b/.test(child.text)) return true;
  }
  return false;
}
