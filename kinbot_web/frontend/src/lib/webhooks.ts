/** Inbound webhooks as Settings shows them (docs/webhooks.md): the API's shapes, a random
 * signing secret, and the `curl` command that tries a webhook's address. */

/** A webhook as `/api/webhooks` returns it: never its token nor its secret. */
export interface Webhook {
  id: string;
  kin_id: string;
  name: string;
  signed: boolean;
  max_body_bytes: number;
  enabled: boolean;
  created_at: number;
  last_received_at: number | null;
  received_count: number;
}

/** A webhook with its newly issued token (creation, rotation): the only time it is known. */
export interface IssuedWebhook {
  webhook: Webhook;
  token: string;
  path: string;
  url: string | null;
}

/** The largest body limit a webhook may have, in KiB (the server's `WEBHOOK_BODY_CEILING`). */
export const LIMIT_MAX_KIB = 1024;

/** A random signing secret: 32 bytes from the browser's CSPRNG, base64url (43 characters). */
export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The body limit in bytes a "size limit (KiB)" field asks for, `undefined` when it is empty
 * (the instance's default), or `null` when it is not a whole number from 1 to 1024. */
export function limitBytes(field: string): number | undefined | null {
  const text = field.trim();
  if (!text) return undefined;
  if (!/^\d+$/.test(text)) return null;
  const kib = Number(text);
  return kib >= 1 && kib <= LIMIT_MAX_KIB ? kib * 1024 : null;
}

/** `value` as one single-quoted shell word. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command that posts a JSON message to `url`; for a signed webhook it signs the body with
 * `secret` (or `$SECRET` when the secret is not known here, after a rotation) using openssl.
 */
export function curlExample(url: string, message: string, signed: boolean, secret?: string): string {
  const body = shellQuote(JSON.stringify({ message }));
  if (!signed) return `curl -X POST ${shellQuote(url)} \\\n  -H 'Content-Type: application/json' \\\n  --data-binary ${body}`;
  return [
    `SECRET=${secret ? shellQuote(secret) : "'…'"}`,
    `BODY=${body}`,
    `SIGNATURE=$(printf '%s' "$BODY" | openssl dgst -sha256 -hmac "$SECRET" -r | cut -d' ' -f1)`,
    `curl -X POST ${shellQuote(url)} \\\n  -H 'Content-Type: application/json' \\\n  -H "X-Hub-Signature-256: sha256=$SIGNATURE" \\\n  --data-binary "$BODY"`,
  ].join("\n");
}
