import { readdirSync, readFileSync } from "node:fs";
import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import {
  extractSymbols,
  loadParsers,
  readDeclarations,
} from "../../../../cli/plan/symbols/extract-symbols.js";
import { javascriptDeclarations, loadJavaScriptParser } from "../../../../cli/plan/symbols/javascript.js";
import { typescriptCompiler, typescriptDeclarations } from "../../../../cli/plan/symbols/typescript.js";
import { parseUnifiedDiff } from "../../../../shared/diff/parse.js";

const FIXTURES = new URL("../../../fixtures/declarations/", import.meta.url);
/** A fixture by the name it is read under: stored as `NAME.txt`, so that tsc and biome leave it alone. */
const fixture = (name: string) => readFileSync(new URL(`${name}.txt`, FIXTURES), "utf8");
/** Every construct the readers handle, one fixture per kind of file; broken.ts does not parse. */
const PARSEABLE = readdirSync(FIXTURES)
  .map((name) => name.replace(/\.txt$/, ""))
  .filter((name) => name !== "broken.ts");

describe("oxc's reading of TS/JS agrees with the TypeScript compiler's", () => {
  it.each(PARSEABLE)("%s: the same declarations, field by field", async (name) => {
    const parse = await loadJavaScriptParser();
    const text = fixture(name);
    const expected = typescriptDeclarations(typescriptCompiler(), text, name);
    expect(expected.length).toBeGreaterThan(2);
    expect(javascriptDeclarations(parse, text, name)).toEqual(expected);
  });

  it("reads every construct of constructs.ts: members, defaults, config keys, exports, namespaces", async () => {
    const parse = await loadJavaScriptParser();
    const declarations = javascriptDeclarations(parse, fixture("constructs.ts"), "constructs.ts") ?? [];
    const lines = declarations.map(
      (declaration) =>
        `${declaration.line} ${declaration.startLine}-${declaration.endLine} ${declaration.kind} ${declaration.path}${declaration.hidden ? " (hidden)" : ""}: ${declaration.signature.replace("\u0000", "@")}${declaration.body ? ` {${declaration.body.length}}` : ""}${declaration.doc ? ` doc ${declaration.doc}` : ""}`,
    );
    expect(lines).toMatchInlineSnapshot(`
      [
        "7 4-19 interface ClientOptions: export interface @ { /** Base URL. */ readonly baseUrl?: string; "retry-limit": number, timeout(ms: number): void; get agent(): string; set agent(value: string); [header: string]: unknown; (call: number): void; new (construct: number): ClientOptions; [Symbol.iterator]: () => void; 42: string; } doc /** * Options of the client. */",
        "9 9-9 member ClientOptions::baseUrl: y baseUrl?: string; doc /** Base URL. */",
        "10 10-10 member ClientOptions::retry-limit: : number,",
        "11 11-11 member ClientOptions::timeout: (ms: number): void;",
        "12 12-12 member ClientOptions::agent: gent(): string;",
        "13 13-13 member ClientOptions::agent: gent(value: string);",
        "24 23-27 type Hooks: export type @ = { beforeRequest: (() => void)[]; afterResponse?: string; }; doc // A line comment, then a blank line. // The comment that belongs to the type.",
        "25 25-25 member Hooks::beforeRequest: : (() => void)[];",
        "26 26-26 member Hooks::afterResponse: ?: string;",
        "28 28-28 type Union: type @ = "a" | "b";",
        "29 29-29 type Mapped: export type @ = { [K in Union]: K }; doc // trailing comment of the statement before",
        "30 30-30 type Parenthesised: type @ = ({ inner: string });",
        "32 32-35 enum Level: export enum @ { Low = 1, High, }",
        "36 36-36 enum Flag: declare const enum @ { On }",
        "38 38-64 class Client: @sealed export class @<T> extends Base implements Thing {",
        "41 40-41 variable Client::token (hidden): private @ = ""; doc /** The token. */",
        "42 42-42 variable Client::#secret (hidden): @ = 1;",
        "43 43-43 variable Client::count: protected static @: number;",
        "44 44-44 variable Client::ready: declare readonly @: boolean;",
        "45 45-45 variable Client::size: accessor @ = 3;",
        "52 52-54 method Client::url: @memo() get @(): string {38}",
        "55 55-55 method Client::url: set @(value: string) {2}",
        "56 56-56 method Client::stream: async *@(): AsyncGenerator<T> {2}",
        "57 57-57 method Client::overloaded: @(a: string): void;",
        "58 58-58 method Client::overloaded: @(a: number): void;",
        "59 59-59 method Client::overloaded: @(a: unknown): void {2}",
        "60 60-60 method Client::#hidden (hidden): @() {2}",
        "63 63-63 variable Client::helper (hidden): private @ = (x: number) => x * 2;",
        "66 66-69 class Shape: export abstract class @ {",
        "67 67-67 method Shape::area: abstract @(): number;",
        "68 68-68 variable Shape::name: abstract readonly @: string;",
        "75 74-77 function fetchJson: export async function @(url: string, { retries = 3, timeout: wait = 1000, headers, ...rest }: Options = {}, [first] = []): Promise<unknown> {22} doc /** Fetches. */",
        "75 75-75 member fetchJson::retries: 3",
        "75 75-75 member fetchJson::timeout: 1000",
        "75 75-75 member fetchJson::headers: ",
        "75 75-75 member fetchJson::rest: ",
        "78 78-78 function overload: export function @(a: string): void;",
        "79 79-79 function overload: export function @(a: number): void;",
        "80 80-80 function overload: export function @(a: unknown): void {2}",
        "81 81-81 function declared: declare function @(x: number): string;",
        "82 82-82 function generator: function* @() {2}",
        "83 83-83 function withRest: function @(...{ length }: string[]) {2}",
        "83 83-83 member withRest::length: ",
        "85 85-85 constant VERSION: @ = "1.0.0"",
        "86 86-86 variable mutable: @ = 1",
        "87 87-87 variable second: @ = 2 doc /** Second. */",
        "88 88-88 variable legacy: @",
        "91 91-91 function arrow: @ = async ({ lines = 10, columns }: { lines?: number; columns?: number } = {}) => {15}",
        "91 91-91 member arrow::lines: 10",
        "91 91-91 member arrow::columns: ",
        "92 92-92 function expressionBody: @ = (value: string) => {14}",
        "93 93-93 constant parenthesised: @ = (function named() { return 1; })",
        "94 94-94 function functionExpression: @ = function (a: string) {13}",
        "95 95-95 constant resource: @ = open()",
        "96 96-96 variable other: @ = open()",
        "98 98-107 constant defaultConfig: @ = { retries: 2, nested: { depth: 1, "quoted-key": true, [computed]: 3, 5: "numeric" }, shorthand, method() { return 1; }, get getter() { return 1; }, ...spread, list: [{ inList: 1 }], call: make({ inCall: 2 }), } satisfies Config",
        "99 99-99 config defaultConfig::retries: 2",
        "100 100-100 config defaultConfig::nested: { depth: 1, "quoted-key": true, [computed]: 3, 5: "numeric" }",
        "101 101-101 config defaultConfig::shorthand: ",
        "102 102-102 config defaultConfig::method: ",
        "103 103-103 config defaultConfig::getter: ",
        "105 105-105 config defaultConfig::list: [{ inList: 1 }]",
        "106 106-106 config defaultConfig::call: make({ inCall: 2 })",
        "100 100-100 config defaultConfig::depth: 1",
        "100 100-100 config defaultConfig::quoted-key: true",
        "105 105-105 config defaultConfig::inList: 1",
        "106 106-106 config defaultConfig::inCall: 2",
        "109 109-109 constant optionsSchema: @ = z.object({ model: z.string(), turns: z.number().default(8) })",
        "109 109-109 config optionsSchema::model: z.string()",
        "109 109-109 config optionsSchema::turns: z.number().default(8)",
        "111 111-111 export version: VERSION as @",
        "111 111-111 export default: Client as @",
        "111 111-111 export HookTypes: type Hooks as @",
        "111 111-111 export kebab-name: helper as "@"",
        "112 112-112 export readFile: @",
        "118 118-118 interface Window: interface @ { impact: string }",
        "118 118-118 member Window::impact: : string",
        "121 121-121 constant injected: @: number",
        "125 125-125 function innerFunction: export function @(): void {2}",
        "128 128-128 constant hiddenInside: @ = 1",
      ]
    `);
  });

  it("gives up on text with a syntax error, which the compiler reads instead", async () => {
    const parse = await loadJavaScriptParser();
    const text = fixture("broken.ts");
    expect(javascriptDeclarations(parse, text, "broken.ts")).toBeUndefined();
    const read = await readDeclarations("src/broken.ts", text);
    expect(read).toEqual(typescriptDeclarations(typescriptCompiler(), text, "src/broken.ts"));
    expect(read?.map((declaration) => declaration.name)).toContain("complete");
  });

  it("finds the same changed symbols in hunks alone (most hunks do not parse on their own)", async () => {
    const before = fixture("constructs.ts");
    const after = before
      .replace("retries = 3", "retries = 5")
      .replace("export enum Level", "export enum Severity")
      .replace("beforeRequest:", "beforeRequests:")
      .replace("accessor size = 3;", "accessor size = 4;");
    const [file] = parseUnifiedDiff(createTwoFilesPatch("a/src/c.ts", "b/src/c.ts", before, after));
    if (!file) throw new Error("no file in the patch");
    const withOxc = await loadParsers(["typescript"]);
    const compilerOnly = { typescript: typescriptCompiler(), grammars: {} };
    for (const sides of [{}, { before, after }]) {
      const symbols = extractSymbols({ file, ...sides, parsers: withOxc });
      expect(symbols.length).toBeGreaterThan(2);
      expect(symbols).toEqual(extractSymbols({ file, ...sides, parsers: compilerOnly }));
    }
  });
});
