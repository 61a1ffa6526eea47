import { Chalk } from "chalk";
import { CONFORMANCE_RULE_IDS, type ConformanceReport, type ConformanceStatus } from "./rules.js";

const LABELS: Record<ConformanceStatus, string> = { pass: "pass", fail: "FAIL", skipped: "skip" };

/**
 * Renders a conformance report for people: one line per rule (`pass|FAIL|skip  <rule>
 * <title>[ — detail]`), the rules not run (`report.notRun`) among them as `skip`, then one
 * summary line naming the bridge and the counts (skipped includes the rules not run).
 * Newline-terminated; colour only when `color` is true.
 */
export function formatConformanceText(report: ConformanceReport, options: { color: boolean }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const paint: Record<ConformanceStatus, (text: string) => string> = { pass: c.green, fail: c.red.bold, skipped: c.yellow };
  // Rules not run (no prompt in the fixture) are shown and counted as skipped, in rule order.
  const shown = [...report.results, ...(report.notRun ?? [])].sort((a, b) => CONFORMANCE_RULE_IDS.indexOf(a.id) - CONFORMANCE_RULE_IDS.indexOf(b.id));
  const width = Math.max(0, ...shown.map((r) => r.id.length));
  const lines = shown.map((r) => {
    const showDetail = r.detail !== "" && r.status !== "pass";
    return `${paint[r.status](LABELS[r.status])}  ${r.id.padEnd(width)}  ${r.title}${showDetail ? ` — ${r.detail}` : ""}`;
  });
  const count = (status: ConformanceStatus) => shown.filter((r) => r.status === status).length;
  const verdict = report.passed ? c.green("conformant") : c.red.bold("not conformant");
  lines.push(`${report.bridge}: ${verdict} — ${count("pass")} passed, ${count("fail")} failed, ${count("skipped")} skipped`);
  return `${lines.join("\n")}\n`;
}
