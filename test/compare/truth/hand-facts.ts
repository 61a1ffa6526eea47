/**
 * Facts written by hand for the judge's unit tests: what the committed cells' model scripts do in
 * their workspaces (cells/command-fails, cells/turn-tools, cells/model-error, cells/approval-*).
 * The committed facts files are computed by the harness (harness/facts); these let the judge be
 * tested on its own, and a test below holds them equal to the computed files where those exist.
 */
import type { TruthFacts } from "../../../harness/compare/truth/facts-shape.js";

const cmd = { response: 0, call: 0, tool: "bash", kind: "command" as const, cwd: ".", approval: null };

export const COMMAND_FAILS: TruthFacts = {
  cell: "command-fails",
  variant: null,
  steps: [
    {
      ...cmd,
      command: "sh -c 'echo first line; echo second line; echo something went wrong >&2; exit 3'",
      ran: true,
      stdout: "first line\nsecond line\n",
      stderr: "something went wrong\n",
      exit: { code: 3 },
    },
  ],
  model: [
    { response: 0, error: null },
    { response: 1, error: null },
  ],
  turns: [{ prompt: 1, responses: [0, 1], end: "completed" }],
};

const NOTES = "title: parity notes\nstatus: draft\nowner: nobody\n";

export const TURN_TOOLS: TruthFacts = {
  cell: "turn-tools",
  variant: null,
  steps: [
    { response: 0, call: 0, tool: "read", kind: "read", path: "notes.txt", exists: true, content: NOTES },
    { response: 1, call: 0, tool: "edit", kind: "edit", path: "notes.txt", approval: null, ran: true, before: NOTES, after: NOTES.replace("draft", "final"), created: false, error: null },
    { ...cmd, response: 2, command: "wc -l notes.txt", ran: true, stdout: "3 notes.txt\n", stderr: "", exit: { code: 0 } },
  ],
  model: [0, 1, 2, 3].map((response) => ({ response, error: null })),
  turns: [{ prompt: 1, responses: [0, 1, 2, 3], end: "completed" }],
};

export const MODEL_ERROR: TruthFacts = {
  cell: "model-error",
  variant: null,
  steps: [],
  model: [{ response: 0, error: { status: 401, type: "authentication_error", message: "Invalid API key (a scripted model error)" } }],
  turns: [{ prompt: 1, responses: [0], end: "failed" }],
};

export const APPROVAL_ALLOW: TruthFacts = {
  cell: "approval-allow",
  variant: null,
  steps: [{ ...cmd, command: "touch approved.txt", approval: "allow_once", ran: true, stdout: "", stderr: "", exit: { code: 0 } }],
  model: [0, 1].map((response) => ({ response, error: null })),
  turns: [{ prompt: 1, responses: [0, 1], end: "completed" }],
};
