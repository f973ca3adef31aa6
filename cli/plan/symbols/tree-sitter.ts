import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Node, Parser } from "web-tree-sitter";
import type { SymbolKind } from "../../../shared/changeset.js";
import { MAX_CODE_NESTING } from "../../../shared/limits.js";
import { UnparsableCode } from "../../../shared/nesting.js";
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
  /** The keys of configuration files the code declares (config-keys.ts), beside its declarations. */
  keys?: (root: Node) => Declaration[];
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
    walk({ spec, text, into: declarations }, tree.rootNode, [], 0, undefined, false, 0);
    if (spec.keys) declarations.push(...spec.keys(tree.rootNode));
    return declarations;
  } finally {
    // Trees live in WASM memory, not on the JavaScript heap: free them explicitly.
    tree.delete();
  }
}

/**
 * Tree levels the walk descends: past it the file is refused (UnparsableCode) rather than
 * overflowing the stack. Nesting without brackets (Ruby's `module`, Python's indentation)
 * passes the bracket scan, so the walk bounds itself.
 */
const MAX_TREE_DEPTH = 2 * MAX_CODE_NESTING;

/**
 * Declarations nested deeper than this (a class in a class in a class…) are not read: each
 * one's path names every level above it, so n levels cost n² characters of paths (a 60 KB
 * Java file of 990 nested classes made 40 MB of symbols). Real code nests a few levels.
 */
const MAX_DECLARATION_NESTING = 32;

interface Walk {
  spec: GrammarSpec;
  text: string;
  into: Declaration[];
}

/**
 * Reads the declarations under `node`. The walk hands each node its parent's children and
 * its index there: tree-sitter finds a node's parent and siblings by descending from the
 * root, so asking for them costs the node's depth, and deeply nested classes made the walk
 * quadratic (a 79 KB Java file of nested classes: seconds and gigabytes).
 */
function walk(
  state: Walk,
  node: Node,
  nodeSiblings: readonly (Node | null)[],
  nodeIndex: number,
  parent: string | undefined,
  inType: boolean,
  depth: number,
): void {
  if (depth > MAX_TREE_DEPTH)
    throw new UnparsableCode(`nests more than ${MAX_TREE_DEPTH} syntax levels deep (Impact reads no deeper)`);
  const { spec } = state;
  const children = node.namedChildren;
  for (const [index, child] of children.entries()) {
    if (!child) continue;
    const rule = spec.rules[child.type];
    const kind = rule && (typeof rule.kind === "function" ? rule.kind(child, inType) : rule.kind);
    if (!rule || !kind) {
      walk(state, child, children, index, parent, inType, depth + 1);
      continue;
    }
    const owner = rule.parentOf?.(child) ?? parent;
    const bodyField = rule.body === undefined ? "body" : rule.body;
    const body = bodyField ? child.childForFieldName(bodyField) : null;
    const names = (rule.names ? rule.names(child) : [child.childForFieldName("name")]).filter(
      (name): name is Node => !!name,
    );
    if (!rule.containerOnly) {
      // The node whose extent is the declaration's: a wrapper around this one declaration
      // alone (`@decorator def`, Go's `type X struct`), else the node itself.
      const wrapped =
        spec.wrappers?.includes(node.type) &&
        children.filter((sibling) => sibling?.type === child.type).length === 1;
      const extent = wrapped
        ? { node, siblings: nodeSiblings, index: nodeIndex }
        : { node: child, siblings: children, index };
      for (const nameNode of names) {
        // A container's signature is its head (up to the members); a leaf without a body is all signature.
        const signatureEnd = body ? body.startIndex : child.endIndex;
        state.into.push(
          declarationOf(
            state,
            child,
            extent,
            nameNode.text,
            kind,
            owner,
            signatureEnd,
            rule.container ? null : body,
          ),
        );
      }
    }
    if (rule.container && body && (owner?.split("::").length ?? 0) < MAX_DECLARATION_NESTING) {
      const name = names[0]?.text;
      // The body's own siblings are never asked for (a body is no declaration).
      walk(state, body, [], 0, name ? (owner ? `${owner}::${name}` : name) : owner, true, depth + 1);
    }
  }
}

/** A declaration's extent: its node (or wrapper) with that node's siblings and its index among them. */
interface Extent {
  node: Node;
  siblings: readonly (Node | null)[];
  index: number;
}

function declarationOf(
  state: Walk,
  node: Node,
  extent: Extent,
  name: string,
  kind: SymbolKind,
  parent: string | undefined,
  signatureEnd: number,
  body: Node | null,
): Declaration {
  const { spec, text } = state;
  const wrapper = extent.node;
  const hidden = spec.hidden?.(node) ?? false;
  return {
    name,
    kind,
    path: parent ? `${parent}::${name}` : name,
    line: node.startPosition.row + 1,
    startLine: leadingStart(spec, text, extent) + 1,
    endLine: wrapper.endPosition.row + (wrapper.endPosition.column === 0 ? 0 : 1),
    signature: blankName(text.slice(wrapper.startIndex, signatureEnd), name),
    body: body ? normalise(text.slice(body.startIndex, body.endIndex)) : "",
    ...(hidden ? { hidden: true } : {}),
    ...(parent ? { parent } : {}),
  };
}

/** The 0-based first row of a declaration's segment: comments and attributes directly above it. */
function leadingStart(spec: GrammarSpec, text: string, extent: Extent): number {
  let row = extent.node.startPosition.row;
  for (let index = extent.index - 1; index >= 0; index -= 1) {
    const sibling = extent.siblings[index];
    if (!sibling) continue;
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
