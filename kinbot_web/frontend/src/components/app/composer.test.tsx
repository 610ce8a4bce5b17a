// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import * as React from "react";
import { afterEach, describe, expect, it, vi } from "vitest";

import "@/i18n";

import { Composer, type PendingFile } from "./composer";

afterEach(cleanup);

const uploaded: PendingFile = { key: 1, name: "recipe.txt", upload: { id: "up-1", filename: "recipe.txt", mime_type: "text/plain", kind: "document", size: 10, url: "/api/uploads/up-1" } };

describe("Composer", () => {
  it("sends the trimmed text with Enter, and breaks the line with Shift+Enter", () => {
    const onSend = vi.fn();
    render(<Composer kinName="Chef" onSend={onSend} />);
    const box = screen.getByPlaceholderText("Message Chef…");
    fireEvent.change(box, { target: { value: "  Hello Chef  " } });
    fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("Hello Chef", []);
    expect((box as HTMLTextAreaElement).value).toBe("");
  });

  it("sends uploaded files, even without text, but not while one is still uploading", () => {
    const onSend = vi.fn();
    const { rerender } = render(<Composer kinName="Chef" onSend={onSend} files={[uploaded, { key: 2, name: "photo.png" }]} />);
    const send = screen.getByRole("button", { name: "Send" });
    expect((send as HTMLButtonElement).disabled).toBe(true);
    rerender(<Composer kinName="Chef" onSend={onSend} files={[uploaded]} />);
    expect((send as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(send);
    expect(onSend).toHaveBeenCalledWith("", ["up-1"]);
  });

  it("keeps the keyboard on the next file, then on the message box, as files are removed", () => {
    function Holder() {
      const [files, setFiles] = React.useState<PendingFile[]>([uploaded, { ...uploaded, key: 2, name: "menu.txt" }]);
      return <Composer kinName="Chef" files={files} onRemoveFile={(key) => setFiles((shown) => shown.filter((file) => file.key !== key))} />;
    }
    render(<Holder />);
    const first = screen.getByRole("button", { name: "Delete recipe.txt" });
    first.focus();
    fireEvent.click(first);
    expect(document.activeElement).toBe(screen.getByRole("button", { name: "Delete menu.txt" }));
    fireEvent.click(screen.getByRole("button", { name: "Delete menu.txt" }));
    expect(document.activeElement).toBe(screen.getByPlaceholderText("Message Chef…"));
  });

  it("offers to stop only while a turn runs", () => {
    const onStop = vi.fn();
    const { rerender } = render(<Composer kinName="Chef" onStop={onStop} />);
    expect(screen.queryByRole("button", { name: "Stop" })).toBeNull();
    rerender(<Composer kinName="Chef" busy onStop={onStop} />);
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(onStop).toHaveBeenCalledOnce();
  });
});
