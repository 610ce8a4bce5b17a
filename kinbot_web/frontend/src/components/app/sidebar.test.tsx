// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import * as React from "react";
import { afterEach, describe, expect, it } from "vitest";

import { SidebarDrawer } from "./sidebar";

afterEach(cleanup);

/** A page with a button that opens the drawer, as the chat's header does at phone width. */
function Page() {
  const [open, setOpen] = React.useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open navigation
      </button>
      <SidebarDrawer open={open} onOpenChange={setOpen} label="Navigation">
        <nav aria-label="KinBot">
          <button type="button">Chef</button>
          <button type="button">Penny</button>
        </nav>
      </SidebarDrawer>
    </>
  );
}

describe("SidebarDrawer", () => {
  it("is a modal dialog that takes focus, closes on Escape and gives focus back", async () => {
    render(<Page />);
    const opener = screen.getByRole("button", { name: "Open navigation" });
    expect(screen.queryByRole("dialog")).toBeNull();
    opener.focus();
    await act(async () => fireEvent.click(opener));
    const drawer = screen.getByRole("dialog", { name: "Navigation" });
    // Modal: the page behind is hidden from screen readers while it is open.
    expect(opener.closest("[aria-hidden=true]")).not.toBeNull();
    expect(drawer.contains(document.activeElement)).toBe(true);
    expect(screen.getByRole("button", { name: "Chef" })).toBe(document.activeElement);

    await act(async () => fireEvent.keyDown(document.activeElement ?? document.body, { key: "Escape" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    // Radix gives the focus back in a task after the drawer unmounts: wait for it.
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });
});
