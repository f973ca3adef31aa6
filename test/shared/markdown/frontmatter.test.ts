import { describe, expect, it } from "vitest";
import { findFrontmatterFences, parseFrontmatter } from "../../../shared/markdown/frontmatter.js";

describe("parseFrontmatter", () => {
  it("parses YAML between the fences and gives the fence lines", () => {
    const fm = parseFrontmatter("---\nattention:\n  - op: file\n    path: a.ts\n---\n# Title\n");
    expect(fm?.data).toEqual({ attention: [{ op: "file", path: "a.ts" }] });
    expect([fm?.startLine, fm?.endLine]).toEqual([1, 5]);
    expect(fm?.error).toBeUndefined();
  });

  it("handles CRLF and a BOM", () => {
    const fm = parseFrontmatter("\uFEFF---\r\ntitle: x\r\n---\r\nbody\r\n");
    expect(fm?.data).toEqual({ title: "x" });
    expect(fm?.endLine).toBe(3);
  });

  it("returns null without frontmatter", () => {
    expect(parseFrontmatter("# Title\n---\n")).toBeNull();
  });

  it("reports broken YAML with the line in the whole file", () => {
    const fm = parseFrontmatter("---\ntitle: x\nattention: [unclosed\n---\n");
    expect(fm?.data).toBeUndefined();
    expect(fm?.error?.line).toBe(3);
  });

  it("reports a missing closing fence", () => {
    expect(parseFrontmatter("---\ntitle: x\n# Title\n")?.error?.message).toBe(
      "frontmatter has no closing --- line",
    );
  });

  it("reads up to the closing fence only, whatever follows", () => {
    const body = "text\n".repeat(50_000);
    const fm = parseFrontmatter(`---\r\ntitle: x\r\n...\r\n---\n${body}`);
    expect([fm?.data, fm?.endLine, fm?.raw]).toEqual([{ title: "x" }, 3, "title: x"]);
  });

  it("counts the lines of an unclosed frontmatter like the file does", () => {
    const fm = parseFrontmatter("---\ntitle: x\n");
    expect([fm?.endLine, fm?.raw, fm?.error?.line]).toEqual([3, "title: x\n", 1]);
  });
});

describe("findFrontmatterFences", () => {
  it("finds the fences once for every reader: offsets of the YAML and of the body", () => {
    const content = "---\r\ntitle: x\r\n...\r\nbody\n";
    const fences = findFrontmatterFences(content);
    expect(fences).toEqual({ yamlStart: 5, yamlEnd: 14, end: 20, closed: true });
    expect(content.slice(fences!.yamlStart, fences!.yamlEnd)).toBe("title: x\r");
    expect(content.slice(fences!.end)).toBe("body\n");
  });

  it("tells an empty block, a closing fence at the very end, an unclosed block and none apart", () => {
    expect(findFrontmatterFences("---\n---\nbody")).toMatchObject({ end: 8, closed: true });
    expect(parseFrontmatter("---\n---\nbody")).toMatchObject({ raw: "", endLine: 2, closed: true });
    expect(findFrontmatterFences("\uFEFF---\na: 1\n---")).toEqual({
      yamlStart: 5,
      yamlEnd: 9,
      end: 13,
      closed: true,
    });
    expect(findFrontmatterFences("---\na: 1\n----\n")).toMatchObject({ closed: false, end: 14 });
    expect(parseFrontmatter("---\na: 1\n----\n")).toMatchObject({ closed: false, endLine: 4 });
    expect(findFrontmatterFences("# Title\n---\n")).toBeNull();
  });
});
