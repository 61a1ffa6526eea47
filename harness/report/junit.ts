/**
 * The `junit` reporter: JUnit XML as CI systems read it — one `<testsuite>` per provider, one
 * `<testcase classname="parity.<provider>" name="<cell>">` per cell with `<failure>` (a parity
 * difference), `<error>` (an input of the cell could not be read) or `<skipped>`. Times are each
 * cell's own, in seconds. Every text is escaped, and characters XML 1.0 forbids are removed.
 */
import type { CellResult, CheckRunResult, ProviderVersions } from "./check-report.js";
import { alternateWords, timedOutCount, toCheckReport } from "./check-report.js";
import type { CatalogChange } from "./catalog-changes.js";
import { catalogValues, renderCellText } from "./text.js";
import { visible } from "./visible.js";

// XML 1.0 Char production: tab, LF, CR, and the ranges below; everything else is dropped.
const XML_INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Escapes text for an XML attribute or element (`& < > " '`): terminal-steering characters made
 * visible as `\uXXXX` (harness/report/visible.ts; CI systems print these texts in logs), any other
 * character XML 1.0 forbids dropped.
 */
export function escapeXml(text: string): string {
  return visible(text).replace(XML_INVALID, "").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function failureMessage(cell: CellResult): string {
  const parts: string[] = [];
  // Counted as the text reporter counts them: a difference the oracle and the recording share is one.
  const distinct = new Set(cell.diffs.map((d) => JSON.stringify([d.layer, d.op, d.path, d.old ?? null, d.new ?? null, d.ids ?? null]))).size;
  if (distinct > 0) parts.push(`${distinct} ${distinct === 1 ? "difference" : "differences"}`);
  if (cell.stale.length > 0) parts.push(`${cell.stale.length} stale allowlist entry(ies)`);
  if (cell.divergences.length > 0) parts.push(`${cell.divergences.length} divergence(s)`);
  if (cell.detail?.error) parts.push(cell.detail.error);
  return parts.join(", ") || "failed";
}

function testcase(cell: CellResult): string {
  const open = `    <testcase classname="${escapeXml(`parity.${cell.provider}`)}" name="${escapeXml(cell.cell)}" time="${seconds(cell.ms)}"`;
  // A pass on an alternate path of the agent says which (harness/check/alternate-match.ts): a property and the words.
  if (cell.status === "pass" && cell.alternate !== undefined) {
    const words = `${alternateWords(cell.alternate)} (${cell.alternate.oracle})`;
    return `${open}>\n      <properties>\n        <property name="alternate.path" value="${cell.alternate.path}"/>\n        <property name="alternate.oracle" value="${escapeXml(cell.alternate.oracle)}"/>\n      </properties>\n      <system-out>${escapeXml(words)}</system-out>\n    </testcase>`;
  }
  if (cell.status === "pass") return `${open}/>`;
  if (cell.status === "error") {
    const message = cell.detail?.error ?? "unreadable input";
    return `${open}>\n      <error message="${escapeXml(message)}" type="input">${escapeXml(message)}</error>\n    </testcase>`;
  }
  if (cell.status === "timeout") {
    return `${open}>\n      <error message="${escapeXml(cell.detail?.error ?? "infrastructure timeout")}" type="infrastructure-timeout"/>\n    </testcase>`;
  }
  if (cell.status === "skip") {
    return `${open}>\n      <skipped message="${escapeXml(cell.detail?.skipReason ?? "skipped")}"/>\n    </testcase>`;
  }
  const body = renderCellText(cell, { color: false });
  return `${open}>\n      <failure message="${escapeXml(failureMessage(cell))}" type="parity">${escapeXml(body)}</failure>\n    </testcase>`;
}

/**
 * A suite's `<properties>`: the CLI versions of its recordings (`cliVersion.recordings`) and of
 * its oracles (`cliVersion.oracles`), comma-separated, and the cells whose two differ
 * (`cliVersion.differ`), as issue 41 asks every report's header to say them; then one
 * `catalogChange` per catalog change of the provider said once. No element when there is none.
 */
function versionProperties(v: ProviderVersions | undefined, catalogs: readonly CatalogChange[]): string[] {
  const property = (name: string, value: string) => `      <property name="${name}" value="${escapeXml(value)}"/>`;
  const properties = [
    ...(v !== undefined
      ? [
          property("cliVersion.recordings", v.recordings.join(", ")),
          property("cliVersion.oracles", v.oracles.join(", ")),
          ...(v.oracleUnknown > 0 ? [property("cliVersion.oraclesUnknown", String(v.oracleUnknown))] : []),
          ...(v.differ.length > 0 ? [property("cliVersion.differ", v.differ.join(", "))] : []),
        ]
      : []),
    // A catalog change the same in several of the suite's cells, once (catalog-changes.ts); each of those testcases still fails.
    ...catalogs.map((x) => property("catalogChange", `${x.op} ${x.where}  ${catalogValues(x)}  (against ${x.against}; ${x.cells.length} cells: ${x.cells.join(", ")})`)),
  ];
  return properties.length === 0 ? [] : ["    <properties>", ...properties, "    </properties>"];
}

/** Renders a run as a JUnit XML document (UTF-8, newline-terminated). */
export function renderJunitReport(run: CheckRunResult): string {
  const report = toCheckReport(run);
  const providers = [...new Set(run.cells.map((cell) => cell.provider))];
  const suites = providers.map((provider) => {
    const cells = run.cells.filter((cell) => cell.provider === provider);
    const failures = cells.filter((cell) => cell.status === "fail").length;
    const skipped = cells.filter((cell) => cell.status === "skip").length;
    const errors = cells.filter((cell) => cell.status === "error" || cell.status === "timeout").length;
    const time = cells.reduce((sum, cell) => sum + cell.ms, 0);
    const versions = report.versions.find((v) => v.provider === provider);
    return [
      `  <testsuite name="${escapeXml(`parity.${provider}`)}" tests="${cells.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(time)}">`,
      ...versionProperties(
        versions,
        report.catalogChanges.filter((x) => x.provider === provider),
      ),
      ...cells.map(testcase),
      "  </testsuite>",
    ].join("\n");
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="parity" tests="${run.cells.length}" failures="${report.failed}" errors="${report.errors + timedOutCount(run)}" skipped="${report.skipped}" time="${seconds(run.ms)}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}
