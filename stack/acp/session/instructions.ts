/**
 * Session instructions injected into the first prompt of a fresh session (spec 20 §2.3, spec 30 §6.3).
 */
import type { SkillsRoot } from "../state/runtime.js";

/** Opening paragraph of the skills block. */
export const SKILLS_BLOCK_INTRO = "bb skills are reusable instructions stored as SKILL.md files. When a task matches a skill, read its SKILL.md and follow it.";

function cleanDescription(text: string): string {
  const cleaned = text.replace(/[<>]/g, "").replace(/\s+/g, " ").trim();
  return cleaned || "(description unavailable)";
}

/**
 * Trimmed `options.instructions` plus an optional skills block (`Available bb skills:` then
 * `- <name>: <description> (SKILL.md: <root>/<name>/SKILL.md)` per skill), joined by a blank line.
 * `null` when both are empty.
 */
export function composeInstructions(instructions: string | undefined, skills: readonly SkillsRoot[]): string | null {
  const parts: string[] = [];
  const trimmed = instructions?.trim();
  if (trimmed) parts.push(trimmed);
  const lines: string[] = [];
  for (const root of skills) {
    for (const skill of root.skills) {
      lines.push(`- ${skill.name}: ${cleanDescription(skill.description)} (SKILL.md: ${root.path}/${skill.name}/SKILL.md)`);
    }
  }
  if (lines.length) parts.push(`${SKILLS_BLOCK_INTRO}\n\nAvailable bb skills:\n${lines.join("\n")}`);
  return parts.length ? parts.join("\n\n") : null;
}
