// @vitest-environment jsdom
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { describe, expect, it, vi } from "vitest";

import { appPath, keyBytes } from "./push";

const ORIGIN = "https://kinbot.example.org";
const SOURCE = readFileSync(fileURLToPath(import.meta.url).replace(/src[/\\]lib[/\\][^/\\]+$/, "public/sw.js"), "utf8");

interface FakeClient {
  url: string;
  postMessage: ReturnType<typeof vi.fn>;
  focus: ReturnType<typeof vi.fn>;
}

/** public/sw.js run with a fake `self`: its listeners, and what it asked the browser to do. */
function worker(windows: FakeClient[] = []) {
  const listeners: Record<string, (event: unknown) => void> = {};
  const self = {
    location: { origin: ORIGIN },
    addEventListener: (type: string, listener: (event: unknown) => void) => (listeners[type] = listener),
    skipWaiting: vi.fn(),
    registration: { showNotification: vi.fn(async () => undefined) },
    clients: {
      matchAll: vi.fn(async () => windows),
      openWindow: vi.fn(async (url: string) => ({ url })),
      claim: vi.fn(async () => undefined),
    },
  };
  new Function("self", SOURCE)(self);
  const waited: Promise<unknown>[] = [];
  const fire = async (type: string, event: Record<string, unknown>) => {
    listeners[type]({ ...event, waitUntil: (promise: Promise<unknown>) => waited.push(promise) });
    await Promise.all(waited);
  };
  return { self, fire };
}

function pushEvent(payload: unknown) {
  return { data: { json: () => (typeof payload === "string" ? JSON.parse(payload) : payload) } };
}

function windowAt(url: string): FakeClient {
  return { url, postMessage: vi.fn(), focus: vi.fn(async () => { throw new Error("not allowed"); }) };
}

describe("the service worker", () => {
  it("shows a pushed notification with its title, body, icon and tag", async () => {
    const { self, fire } = worker();
    await fire("push", pushEvent({ title: "Train cancelled", body: "The 9:12 is cancelled.", link: "/kins/k1?message=7", tag: "/kins/k1?message=7" }));
    expect(self.registration.showNotification).toHaveBeenCalledWith("Train cancelled", {
      body: "The 9:12 is cancelled.",
      icon: "/icon-192.png",
      badge: "/icon-192.png",
      data: { link: "/kins/k1?message=7" },
      tag: "/kins/k1?message=7",
      renotify: true,
    });
  });

  it("still shows something for a push it cannot read", async () => {
    const { self, fire } = worker();
    await fire("push", pushEvent("not json"));
    expect(self.registration.showNotification).toHaveBeenCalledWith("KinBot", expect.objectContaining({ body: "", data: { link: "/" } }));
  });

  it("on a click, sends the open KinBot window to the message and brings it forward", async () => {
    const open = windowAt(`${ORIGIN}/kins/k2`);
    const { self, fire } = worker([windowAt("https://elsewhere.example/"), open]);
    const close = vi.fn();
    await fire("notificationclick", { notification: { close, data: { link: "/kins/k1?message=7" } } });
    expect(close).toHaveBeenCalled();
    expect(open.postMessage).toHaveBeenCalledWith({ type: "kinbot.open", url: `${ORIGIN}/kins/k1?message=7` });
    expect(open.focus).toHaveBeenCalled(); // refused here: the message is sent all the same
    expect(self.clients.openWindow).not.toHaveBeenCalled();
  });

  it("opens KinBot at the message when no window is open, and never another site", async () => {
    const { self, fire } = worker();
    await fire("notificationclick", { notification: { close: vi.fn(), data: { link: "/tasks/t9" } } });
    expect(self.clients.openWindow).toHaveBeenLastCalledWith(`${ORIGIN}/tasks/t9`);
    for (const link of ["//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:alert(1)", 42]) {
      await fire("notificationclick", { notification: { close: vi.fn(), data: { link } } });
      expect(self.clients.openWindow).toHaveBeenLastCalledWith(`${ORIGIN}/`);
    }
  });
});

describe("the page's side", () => {
  it("goes only to paths of its own origin", () => {
    expect(appPath(`${ORIGIN}/kins/k1?message=7`, ORIGIN)).toBe("/kins/k1?message=7");
    expect(appPath("https://evil.example/kins", ORIGIN)).toBeNull();
  });

  it("turns the VAPID key into the bytes the Push API wants", () => {
    // The uncompressed P-256 point starts with 0x04 and is 65 bytes long.
    const key = "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U";
    const bytes = keyBytes(key);
    expect(bytes.length).toBe(65);
    expect(bytes[0]).toBe(4);
  });
});
