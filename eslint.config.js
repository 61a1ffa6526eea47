// The linter of the repository (issue 28 point 6): eslint's and typescript-eslint's recommended
// rules over every TypeScript and JavaScript source; recorded data and build output are not code.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Node's globals the plain JavaScript files (bin/, test fixtures) use; TypeScript checks its own. */
const NODE_GLOBALS = Object.fromEntries(
  ["process", "console", "Buffer", "URL", "fetch", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "performance"].map((name) => [name, "readonly"]),
);

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "agents/", "recordings/", "lanes/", "cells/", "allowlists/", "tmp/", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: NODE_GLOBALS },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // A leading underscore marks a value left out on purpose (a key dropped by a rest
      // destructuring, a callback parameter the signature requires).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" }],
      // Matching control characters is the point where it occurs: ANSI escapes in terminal
      // output, the C0 range JSON forbids unescaped.
      "no-control-regex": "off",
    },
  },
  {
    // Tests read what bridges and recordings wrote: untyped JSON, narrowed by the assertions.
    files: ["test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
