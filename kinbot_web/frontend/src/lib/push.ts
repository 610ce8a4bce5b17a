/**
 * Web Push in the browser (docs/notifications.md): the service worker (`public/sw.js`), this
 * device's subscription (subscribed with the instance's VAPID key, given to KinBot), and the
 * app's side of a notification click (the worker asks the open window to go to a page).
 */
import * as React from "react";
import { useNavigate } from "react-router";

import { api } from "@/lib/api";

export type NotificationMode = "always" | "away" | "never";

/** `GET /api/me/notifications`. */
export interface NotificationSettings {
  /** Null while the server cannot open its Web Push keys (a backup restored without its
   * master key). */
  vapid_public_key: string | null;
  preference: { mode: NotificationMode; route: string };
  routes: { name: string; label?: string }[];
}

/** One of my devices, as `GET /api/me/push-subscriptions` lists it. */
export interface PushDevice {
  id: string;
  device: { browser?: string; os?: string };
  endpoint_sha256: string;
  created_at: number;
  last_success_at: number | null;
  last_failure_at: number | null;
}

/** What `POST /api/me/notifications/test` says became of the test. */
export interface TestOutcome {
  status: "delivered" | "no_device" | "failed" | "rate_limited";
  retry_after?: number;
}

/** The message the service worker sends an open window on a notification click. */
export interface OpenMessage {
  type: "kinbot.open";
  url: string;
}

const WORKER_URL = "/sw.js";

/** Whether this browser can receive push notifications at all (iOS: once on the Home Screen). */
export function pushSupported(): boolean {
  return typeof window !== "undefined" && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** Register the service worker (once the page has loaded; harmless when already there). */
export function registerServiceWorker(): void {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
  const register = () => void navigator.serviceWorker.register(WORKER_URL).catch(() => undefined);
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

/** The VAPID key as `applicationServerKey` wants it: the bytes of its base64url text. */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** The SHA-256 of an endpoint, hex: how this browser finds itself in the device list. */
export async function endpointDigest(endpoint: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(endpoint));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function registration(): Promise<ServiceWorkerRegistration> {
  return (await navigator.serviceWorker.getRegistration()) ?? navigator.serviceWorker.register(WORKER_URL);
}

/** This browser's push subscription, if it has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const found = await navigator.serviceWorker.getRegistration();
  return found ? found.pushManager.getSubscription() : null;
}

function sameKey(subscription: PushSubscription, key: Uint8Array): boolean {
  const current = subscription.options.applicationServerKey;
  if (!current) return false;
  const bytes = new Uint8Array(current);
  return bytes.length === key.length && bytes.every((byte, index) => byte === key[index]);
}

/**
 * Turn notifications on for this device: the browser's permission, a subscription made with
 * KinBot's key (a subscription made with another key is replaced), given to KinBot.
 * Resolves to the permission (`granted` when it worked).
 */
export async function enablePush(vapidKey: string): Promise<NotificationPermission> {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return permission;
  const worker = await registration();
  await navigator.serviceWorker.ready;
  const key = keyBytes(vapidKey);
  let subscription = await worker.pushManager.getSubscription();
  if (subscription && !sameKey(subscription, key)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await worker.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await api("/api/me/push-subscriptions", { method: "POST", body: subscription.toJSON() });
  return permission;
}

/** Turn notifications off for this device: KinBot forgets it, the browser unsubscribes. */
export async function disablePush(): Promise<void> {
  const subscription = await currentSubscription();
  if (!subscription) return;
  await api("/api/me/push-subscriptions", { method: "DELETE", body: { endpoint: subscription.endpoint } }).catch(() => undefined);
  await subscription.unsubscribe();
}

/** The path (with query) of a URL the worker sent, when it is on this origin. */
export function appPath(url: string, origin: string): string | null {
  try {
    const parsed = new URL(url, origin);
    return parsed.origin === origin ? `${parsed.pathname}${parsed.search}${parsed.hash}` : null;
  } catch {
    return null;
  }
}

/** Go where a clicked notification points, when the service worker asks this window to. */
export function useNotificationClicks(): void {
  const navigate = useNavigate();
  React.useEffect(() => {
    if (typeof navigator === "undefined" || !("serviceWorker" in navigator)) return;
    const container = navigator.serviceWorker;
    const onMessage = (event: MessageEvent<OpenMessage>) => {
      if (event.data?.type !== "kinbot.open") return;
      const path = appPath(event.data.url, location.origin);
      if (path) navigate(path);
    };
    container.addEventListener("message", onMessage);
    return () => container.removeEventListener("message", onMessage);
  }, [navigate]);
}
