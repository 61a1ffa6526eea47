/** Placeholder entry replaced by the CLI module. */
export async function main(argv: string[]): Promise<number> {
  process.stdout.write(`parity ${argv.join(" ")}\n`);
  return 0;
}
