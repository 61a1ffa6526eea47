/**
 * Item presentations: label pairs, glyphs and titles (spec 20 §3.3, as kept by spec 30; delegation
 * presentation from spec 30 §1.3). Shared by the translator and the dialects' `classifyToolCall`
 * hooks, so it sits in the dialect layer the translator imports (never the other way round).
 */
import type { ItemShape, Presentation } from "../../protocol/thread-delta.js";
import { PRESENTATION_DETAIL_MAX_CHARS } from "../../protocol/thread-delta-blocks.js";
import type { AcpToolKind } from "./types.js";

/** Longest title, in characters, before it is cut and ends with `…` (spec 20 §3.3). */
export const PRESENTATION_TITLE_MAX_CHARS = 160;

/** `title` rule: first line, trimmed, at most 160 characters with `…`; empty → undefined. */
export function presentationTitle(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const firstLine = (text.split(/\r?\n/, 1)[0] ?? "").trim();
  if (firstLine.length === 0) return undefined;
  if (firstLine.length <= PRESENTATION_TITLE_MAX_CHARS) return firstLine;
  return `${firstLine.slice(0, PRESENTATION_TITLE_MAX_CHARS - 1)}…`;
}

/** Presentation `detail`, cut to the grammar's 280-character limit (spec 10 §1.2). */
export function presentationDetail(text: string | undefined): string | undefined {
  if (text === undefined || text.trim().length === 0) return undefined;
  if (text.length <= PRESENTATION_DETAIL_MAX_CHARS) return text;
  return `${text.slice(0, PRESENTATION_DETAIL_MAX_CHARS - 1)}…`;
}

/** Removes one pair of wrapping backticks (Cursor titles commands `` `cmd` ``). */
export function stripWrappingBackticks(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length >= 2 && trimmed.startsWith("`") && trimmed.endsWith("`")) return trimmed.slice(1, -1);
  return trimmed;
}

function make(pending: string, completed: string, glyph: string, title?: string, detail?: string): Presentation {
  const presentation: Presentation = { label: { pending, completed }, icon: { glyph } };
  if (title !== undefined) presentation.title = title;
  if (detail !== undefined) presentation.detail = detail;
  return presentation;
}

function basename(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part.length > 0);
  return parts[parts.length - 1] ?? path;
}

/** Generic-tool label pair and glyph per ACP kind (spec 20 §3.3, last paragraph). */
const GENERIC_BY_KIND: Record<string, [pending: string, completed: string, glyph: string]> = {
  read: ["Reading file", "Read file", "FileText"],
  edit: ["Editing file", "Edited file", "EditFile"],
  delete: ["Deleting file", "Deleted file", "Trash2"],
  move: ["Moving file", "Moved file", "FolderEdit"],
  search: ["Searching", "Searched", "Search"],
  execute: ["Running command", "Ran command", "Terminal"],
  think: ["Thinking", "Thought", "Brain"],
  fetch: ["Fetching", "Fetched", "Globe"],
};

/** Generic `tool` presentation: the agent title with the kind's labels (other/absent → Running tool). */
export function genericToolPresentation(kind: AcpToolKind | undefined, title: string | undefined): Presentation {
  const [pending, completed, glyph] = (kind !== undefined ? GENERIC_BY_KIND[kind] : undefined) ?? ["Running tool", "Ran tool", "Toolbox"];
  return make(pending, completed, glyph, presentationTitle(title));
}

/** Presentation of a bb-injected tool without its own: `Running <t>`/`Ran <t>`, `Toolbox` (spec 20 §3.3 (a)). */
export function injectedToolPresentation(tool: string): Presentation {
  return make(`Running ${tool}`, `Ran ${tool}`, "Toolbox", presentationTitle(tool));
}

/** Delegation presentation: "Running subagent"/"Subagent finished", `UserRound`, title = label (spec 30 §1.3). */
export function delegationPresentation(label: string, detail?: string): Presentation {
  return make("Running subagent", "Subagent finished", "UserRound", presentationTitle(label), presentationDetail(detail));
}

/** Compaction presentation (spec 20 §3.3). */
export function compactionPresentation(): Presentation {
  return make("Compacting context", "Compacted context", "Archive");
}

/**
 * Presentation of a core shape (spec 20 §3.3). `agentTitle` is used for shapes whose title is
 * the agent's (reasoning). Shapes the classifier never produces fall back to the generic tool one.
 */
export function shapePresentation(item: ItemShape, agentTitle: string | undefined): Presentation {
  switch (item.type) {
    case "command":
      return make("Running command", "Ran command", "Terminal", presentationTitle(stripWrappingBackticks(item.command)));
    case "fileChange": {
      const kinds = new Set(item.changes.map((change) => change.kind));
      const plural = item.changes.length > 1 ? "files" : "file";
      const names = [...new Set(item.changes.map((change) => basename(change.path)))].join(", ");
      const title = presentationTitle(names);
      if (kinds.size === 1 && kinds.has("add")) return make(`Writing ${plural}`, `Wrote ${plural}`, "EditFile", title);
      if (kinds.size === 1 && kinds.has("delete")) return make(`Deleting ${plural}`, `Deleted ${plural}`, "Trash2", title);
      return make(`Editing ${plural}`, `Edited ${plural}`, "EditFile", title);
    }
    case "fileRead":
      return make("Reading file", "Read file", "FileText", presentationTitle(basename(item.path)));
    case "search":
      return item.mode === "content"
        ? make("Searching files", "Searched files", "Search", presentationTitle(item.query))
        : make("Finding files", "Found files", "FolderOpen", presentationTitle(item.query));
    case "webFetch":
      return make("Fetching page", "Fetched page", "Browser", presentationTitle(item.url));
    case "reasoning":
      return make("Thinking", "Thought", "Brain", presentationTitle(agentTitle));
    case "planSteps": {
      const active = item.steps.find((step) => step.status === "active");
      const presentation = make("Updating plan", "Updated plan", "ListTodo", presentationTitle(active?.step));
      presentation.suppress = true;
      return presentation;
    }
    case "compaction":
      return compactionPresentation();
    case "delegation":
      return delegationPresentation(item.label);
    default:
      return genericToolPresentation(undefined, agentTitle);
  }
}
