/*
 * KinBot's service worker (docs/notifications.md): it shows the notifications KinBot pushes
 * and, on a click, brings KinBot forward at the page the notification points to (a message in
 * its Kin's chat: /kins/<kin id>?message=<message id>). It caches nothing: KinBot is online.
 *
 * Plain script, not a module (module service workers are not everywhere yet), so the page's
 * bundle stays out of it; src/lib/service-worker.test.ts runs it with a fake `self`.
 */

/** The page a notification opens: its `link` on KinBot's own origin, never another site. */
function notificationTarget(data, origin) {
  const link = data && typeof data.link === "string" ? data.link : "/";
  const safe = link.startsWith("/") && !link.startsWith("//") && !link.includes("\\");
  const url = new URL(safe ? link : "/", origin);
  return url.origin === origin ? url.href : new URL("/", origin).href;
}

/** What `showNotification` gets for a pushed notification's JSON. */
function notificationOptions(data) {
  const options = {
    body: typeof data.body === "string" ? data.body : "",
    icon: "/icon-192.png",
    badge: "/icon-192.png",
    data: { link: typeof data.link === "string" ? data.link : "/" },
  };
  if (typeof data.tag === "string" && data.tag) {
    options.tag = data.tag;
    options.renotify = true;
  }
  return options;
}

/** The pushed JSON (an empty object for a push without data or with something else). */
function pushedData(event) {
  try {
    const data = event.data ? event.data.json() : {};
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

/** Bring a KinBot window forward at the notification's page, or open one. */
async function openNotificationTarget(data) {
  const target = notificationTarget(data, self.location.origin);
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
  if (!open) return self.clients.openWindow(target);
  // The app routes there itself (no reload): see src/lib/push.ts.
  open.postMessage({ type: "kinbot.open", url: target });
  try {
    await open.focus();
  } catch {
    // Focusing is only allowed while handling the click itself.
  }
  return open;
}

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  const data = pushedData(event);
  const title = typeof data.title === "string" && data.title ? data.title : "KinBot";
  event.waitUntil(self.registration.showNotification(title, notificationOptions(data)));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openNotificationTarget(event.notification.data));
});
