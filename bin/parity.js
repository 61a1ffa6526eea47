#!/usr/bin/env node
// Thin entry: all parsing and behaviour live in harness/cli (compiled to dist/).
import { main } from "../dist/harness/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
