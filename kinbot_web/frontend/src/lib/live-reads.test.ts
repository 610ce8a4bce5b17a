import { describe, expect, it } from "vitest";

import { LiveReads } from "./live-reads";

interface Kin {
  id: string;
  state: string;
}

const thinking = (list: Kin[]) => list.map((kin) => (kin.id === "chef" ? { ...kin, state: "thinking" } : kin));

describe("a state read while live events change it", () => {
  it("keeps what the events said while it was read", () => {
    const kins = new LiveReads<Kin[]>();
    const read = kins.read();
    const change = kins.change(thinking); // the event: applied now, and kept for the read
    expect(change).toBe(thinking);
    // The server read Chef before it began thinking; its answer arrives after the event.
    expect(read.settle([{ id: "chef", state: "idle" }])).toEqual([{ id: "chef", state: "thinking" }]);
  });

  it("does not replay events from before it began, nor after it settled", () => {
    const kins = new LiveReads<Kin[]>();
    kins.change(thinking);
    const read = kins.read();
    expect(read.settle([{ id: "chef", state: "idle" }])).toEqual([{ id: "chef", state: "idle" }]);
    kins.change(thinking);
    const next = kins.read();
    expect(next.settle([{ id: "chef", state: "idle" }])).toEqual([{ id: "chef", state: "idle" }]);
  });

  it("leaves an answer older than the one shown unused", () => {
    const kins = new LiveReads<Kin[]>();
    const first = kins.read();
    const second = kins.read();
    expect(second.settle([{ id: "chef", state: "thinking" }])).toEqual([{ id: "chef", state: "thinking" }]);
    expect(first.settle([{ id: "chef", state: "idle" }])).toBeNull();
    // Answers in order are all shown.
    expect(kins.read().settle([])).toEqual([]);
  });

  it("stops recording for a read that ended without an answer", () => {
    const kins = new LiveReads<Kin[]>();
    const failed = kins.read();
    failed.end();
    kins.change(thinking);
    expect(failed.settle([{ id: "chef", state: "idle" }])).toEqual([{ id: "chef", state: "idle" }]);
  });
});
