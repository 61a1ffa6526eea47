/** Pads every column of `table` to its widest cell; returns newline-terminated text. */
export function formatTable(table: string[][], widthOf: (text: string) => number = (t) => t.length): string {
  const widths: number[] = [];
  for (const row of table) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, widthOf(cell))));
  return table
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - widthOf(cell)))).join("  "))
    .map((line) => `${line.trimEnd()}\n`)
    .join("");
}
