import { describe, expect, it } from "vitest";

import { curlExample, generateSecret, limitBytes, shellQuote } from "./webhooks";

describe("webhook helpers", () => {
  it("generate secrets of 43 URL-safe characters, a new one each time", () => {
    const first = generateSecret();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateSecret()).not.toBe(first);
  });

  it("read the size limit in KiB, empty meaning the default", () => {
    expect(limitBytes("")).toBeUndefined();
    expect(limitBytes(" 64 ")).toBe(65536);
    expect(limitBytes("1024")).toBe(1048576);
    for (const wrong of ["0", "1025", "1.5", "-3", "lots"]) expect(limitBytes(wrong)).toBeNull();
  });

  it("quote shell words, single quotes included", () => {
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it("write a curl command with the address, signed when the webhook is", () => {
    const url = "https://kinbot.example.org/api/hooks/abc";
    const plain = curlExample(url, "Hello from Home Assistant", false);
    expect(plain).toContain(`curl -X POST '${url}'`);
    expect(plain).toContain(`--data-binary '{"message":"Hello from Home Assistant"}'`);
    expect(plain).not.toContain("X-Hub-Signature-256");
    const signed = curlExample(url, "Hi", true, "s3cret's");
    expect(signed).toContain(`SECRET='s3cret'\\''s'`);
    expect(signed).toContain('-H "X-Hub-Signature-256: sha256=$SIGNATURE"');
    expect(curlExample(url, "Hi", true)).toContain("SECRET='…'");
  });
});
