/**
 * Builds the `session/prompt` content blocks from bb turn input (spec 20 §2.4, spec 30 §6.3).
 */
import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";

/** One ACP content block as the bridge sends it. */
export type AcpPromptBlock = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string } | { type: "resource_link"; uri: string; name: string };

/** The standalone builtin that runs the maintenance (compaction) prompt. */
export const COMPACT_COMMAND = "/compact";

const IMAGE_MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Wraps session instructions the way the reference bridge injects them (spec 20 §2.4). */
export function instructionsBlock(instructions: string): AcpPromptBlock {
  return { type: "text", text: `<system_instructions>\n${instructions}\n</system_instructions>` };
}

/** Options of {@link buildPromptBlocks}. */
export interface PromptBlockOptions {
  /** Agent advertised `promptCapabilities.image`. */
  imageSupported: boolean;
  /** Reads a local file (injected for tests); defaults to `fs.readFileSync`. */
  readFile?(path: string): Buffer;
}

/**
 * Maps turn input to blocks (spec 20 §2.4): `text` → text; `image` (URL) → text
 * `[image attachment: <url>]`; `localImage` → base64 image when supported, else text
 * `[image attachment on disk: <path>]`, unreadable → `[unreadable image attachment: <path>]`;
 * `localFile` → `resource_link`. Other input types are dropped.
 */
export function buildPromptBlocks(input: ReadonlyArray<Record<string, unknown>>, options: PromptBlockOptions): AcpPromptBlock[] {
  const read = options.readFile ?? ((path: string) => readFileSync(path));
  const blocks: AcpPromptBlock[] = [];
  for (const item of input) {
    const type = item.type;
    if (type === "text" && typeof item.text === "string") blocks.push({ type: "text", text: item.text });
    else if (type === "image" && typeof item.url === "string") blocks.push({ type: "text", text: `[image attachment: ${item.url}]` });
    else if (type === "localImage" && typeof item.path === "string") {
      const path = item.path;
      if (!options.imageSupported) {
        blocks.push({ type: "text", text: `[image attachment on disk: ${path}]` });
        continue;
      }
      try {
        const mimeType = IMAGE_MIME_BY_EXTENSION[extname(path).toLowerCase()] ?? "application/octet-stream";
        blocks.push({ type: "image", data: read(path).toString("base64"), mimeType });
      } catch {
        blocks.push({ type: "text", text: `[unreadable image attachment: ${path}]` });
      }
    } else if (type === "localFile" && typeof item.path === "string") {
      const name = typeof item.name === "string" && item.name ? item.name : basename(item.path);
      blocks.push({ type: "resource_link", uri: `file://${item.path}`, name });
    }
  }
  return blocks;
}

/** True when the input is exactly the standalone `/compact` builtin (spec 20 §2.4). */
export function isCompactInput(input: ReadonlyArray<Record<string, unknown>>): boolean {
  return input.length === 1 && input[0]?.type === "text" && typeof input[0].text === "string" && input[0].text.trim() === COMPACT_COMMAND;
}

/**
 * Rewrites a leading `/<skill>` of the first text input into `Use the bb skill "<skill>":` when
 * `<skill>` is a bb skill the agent does not advertise as its own command (spec 30 §6.2), so the
 * agent does not reject an unknown slash command. Other input passes through unchanged.
 */
export function rewriteUnknownSkillCommand(input: ReadonlyArray<Record<string, unknown>>, skillNames: ReadonlySet<string>, agentCommands: ReadonlySet<string>): Array<Record<string, unknown>> {
  const first = input[0];
  if (!first || first.type !== "text" || typeof first.text !== "string") return [...input];
  const match = /^\/([^\s/]+)(.*)$/s.exec(first.text);
  if (!match || !skillNames.has(match[1]!) || agentCommands.has(match[1]!)) return [...input];
  return [{ ...first, text: `Use the bb skill "${match[1]}":${match[2]}` }, ...input.slice(1)];
}
