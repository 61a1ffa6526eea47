import { describe, expect, it } from "vitest";
import { ApprovalLedger, isAllowDecision, replyDecision } from "../../stack/bridge-kit/approval-ledger.js";

describe("ApprovalLedger: the runtime's answers to a CLI's permission requests, until the call closes", () => {
  it("an allowed call closes approved, a denied one denied, a call never asked about with nothing", () => {
    const ledger = new ApprovalLedger();
    ledger.note("a", true);
    ledger.note("d", false);
    expect(ledger.take("a")).toEqual({ approvalStatus: "approved" });
    expect(ledger.take("d")).toEqual({ approvalStatus: "denied" });
    expect(ledger.take("never-asked")).toEqual({});
  });

  it("take forgets the call; clear forgets every call", () => {
    const ledger = new ApprovalLedger();
    ledger.note("a", true);
    ledger.take("a");
    expect(ledger.take("a")).toEqual({});
    ledger.note("b", false);
    ledger.clear();
    expect(ledger.take("b")).toEqual({});
  });

  it("a denial stays: a later allow of the same call does not undo it; an allow is overridden by a later denial", () => {
    const ledger = new ApprovalLedger();
    ledger.note("x", false);
    ledger.note("x", true);
    expect(ledger.take("x")).toEqual({ approvalStatus: "denied" });
    ledger.note("y", true);
    ledger.note("y", false);
    expect(ledger.take("y")).toEqual({ approvalStatus: "denied" });
  });
});

describe("isAllowDecision, replyDecision: the runtime's reply to an approval interaction/request", () => {
  it("allow_once and allow_for_session allow; deny, an unknown decision or none do not", () => {
    expect(["allow_once", "allow_for_session", "deny", "allow", undefined, null].map(isAllowDecision)).toEqual([true, true, false, false, false, false]);
  });

  it("reads the decision of a reply object, undefined for anything else", () => {
    expect(replyDecision({ decision: "allow_once", grantedPermissions: null })).toBe("allow_once");
    expect([null, undefined, "allow_once", 3].map(replyDecision)).toEqual([undefined, undefined, undefined, undefined]);
  });
});
