import { readFile } from "node:fs/promises";
import path from "node:path";

/** Repository root (tests read the shared real data by path relative to it). */
export const repoRoot = path.resolve(import.meta.dirname, "../..");

/** A reference lane of the real acp-cursor recordings, read by path (never copied). */
export async function referenceLane(cell: string): Promise<Array<Record<string, any>>> {
  const file = path.resolve(repoRoot, "../shared/reference-lanes/acp-cursor", `${cell}.events.json`);
  return JSON.parse(await readFile(file, "utf8"));
}

/**
 * Minimal XML 1.0 well-formedness check: one root, balanced and properly nested tags, quoted
 * attributes without raw `<`, only the five predefined or numeric entities, no raw `<`/`&` in text.
 * Returns the problem, or undefined when the document is well-formed.
 */
export function xmlProblem(xml: string): string | undefined {
  let rest = xml.replace(/^<\?xml[^?]*\?>\s*/, "");
  const stack: string[] = [];
  let roots = 0;
  const entity = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/y;
  const checkText = (text: string): string | undefined => {
    for (let i = 0; i < text.length; i++) {
      if (text[i] === "<") return `raw < in text near ${JSON.stringify(text.slice(i, i + 20))}`;
      if (text[i] === "&") {
        entity.lastIndex = i;
        if (!entity.test(text)) return `bad entity near ${JSON.stringify(text.slice(i, i + 12))}`;
      }
    }
    return undefined;
  };
  while (rest.length > 0) {
    const lt = rest.indexOf("<");
    const text = lt === -1 ? rest : rest.slice(0, lt);
    if (stack.length === 0 && text.trim() !== "") return "text outside the root element";
    const textProblem = checkText(text);
    if (textProblem) return textProblem;
    if (lt === -1) break;
    rest = rest.slice(lt);
    const tag = /^<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.-]*\s*=\s*"[^"<]*")*)\s*(\/?)>/.exec(rest);
    if (!tag) return `malformed tag near ${JSON.stringify(rest.slice(0, 40))}`;
    const [whole, closing, name, attrs, selfClosing] = tag;
    for (const attr of attrs!.matchAll(/"([^"]*)"/g)) {
      const problem = checkText(attr[1]!);
      if (problem) return `attribute: ${problem}`;
    }
    if (closing) {
      if (stack.pop() !== name) return `mismatched </${name}>`;
    } else {
      if (stack.length === 0) roots++;
      if (!selfClosing) stack.push(name!);
    }
    rest = rest.slice(whole.length);
  }
  if (stack.length > 0) return `unclosed <${stack[stack.length - 1]}>`;
  if (roots !== 1) return `expected one root element, found ${roots}`;
  return undefined;
}
