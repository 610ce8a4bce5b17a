import { BellIcon, BellOffIcon, SendIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatDate } from "@/lib/format";
import {
  currentSubscription,
  disablePush,
  enablePush,
  endpointDigest,
  pushSupported,
  type NotificationMode,
  type NotificationSettings as Settings,
  type PushDevice,
  type TestOutcome,
} from "@/lib/push";

const MODES: NotificationMode[] = ["always", "away", "never"];

/** Whether this page may use push at all: a secure context and a browser with the Push API. */
function availability(): "ok" | "insecure" | "unsupported" {
  if (typeof window !== "undefined" && !window.isSecureContext) return "insecure";
  return pushSupported() ? "ok" : "unsupported";
}

/** My account's notifications: this device on or off, when and how to be notified, a test,
 * and the devices that receive them. */
export function NotificationSettings() {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [settings, setSettings] = React.useState<Settings | null>(null);
  const [devices, setDevices] = React.useState<PushDevice[]>([]);
  const [mine, setMine] = React.useState<string | null>(null); // this browser's endpoint digest
  const [permission, setPermission] = React.useState<NotificationPermission | null>(null);
  const [busy, setBusy] = React.useState(false);
  const [problem, setProblem] = React.useState<string | null>(null);
  const usable = availability();

  const reload = React.useCallback(async () => {
    const [loaded, listed, subscription] = await Promise.all([
      api<Settings>("/api/me/notifications"),
      api<{ subscriptions: PushDevice[] }>("/api/me/push-subscriptions"),
      usable === "ok" ? currentSubscription().catch(() => null) : Promise.resolve(null),
    ]);
    setSettings(loaded);
    setDevices(listed.subscriptions);
    setMine(subscription ? await endpointDigest(subscription.endpoint) : null);
    if (usable === "ok") setPermission(Notification.permission);
  }, [usable]);

  React.useEffect(() => {
    void reload().catch((error: unknown) => setProblem(errorText(t, error)));
  }, [reload, t]);

  const thisDeviceOn = mine !== null && devices.some((device) => device.endpoint_sha256 === mine);

  async function turnOn() {
    if (!settings) return;
    if (!settings.vapid_public_key) return setProblem(t("notifications.keysUnreadable"));
    const key = settings.vapid_public_key;
    setBusy(true);
    setProblem(null);
    try {
      const answer = await enablePush(key);
      setPermission(answer);
      if (answer === "granted") toast({ title: t("notifications.enabled"), tone: "success" });
      else setProblem(t("notifications.denied"));
      await reload();
    } catch (error) {
      setProblem(error instanceof DOMException ? t("notifications.failed") : errorText(t, error));
    } finally {
      setBusy(false);
    }
  }

  async function turnOff() {
    setBusy(true);
    setProblem(null);
    try {
      await disablePush();
      toast({ title: t("notifications.disabled"), tone: "success" });
      await reload();
    } catch (error) {
      setProblem(errorText(t, error));
    } finally {
      setBusy(false);
    }
  }

  async function choose(change: { mode?: NotificationMode; route?: string }) {
    try {
      setSettings(await api<Settings>("/api/me/notifications", { method: "PATCH", body: change }));
      toast({ title: t("notifications.saved"), tone: "success" });
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
    }
  }

  async function sendTest() {
    try {
      const { outcome } = await api<{ outcome: TestOutcome }>("/api/me/notifications/test", {
        method: "POST",
        body: { title: t("notifications.testTitle"), body: t("notifications.testBody") },
      });
      toast({ title: t(`notifications.outcome.${outcome.status}`), tone: outcome.status === "delivered" ? "success" : "error" });
      await reload();
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
    }
  }

  async function remove(device: PushDevice) {
    try {
      await api(`/api/me/push-subscriptions/${device.id}`, { method: "DELETE" });
      if (device.endpoint_sha256 === mine) await disablePush().catch(() => undefined);
      toast({ title: t("notifications.removed"), tone: "success" });
      await reload();
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
    }
  }

  function deviceName(device: PushDevice): string {
    return t("notifications.device", {
      browser: device.device.browser ?? t("notifications.unknownBrowser"),
      os: device.device.os ?? t("notifications.unknownSystem"),
    });
  }

  if (!settings) return problem ? <p className="text-sm text-destructive" role="alert">{problem}</p> : null;
  const blocked = permission === "denied";
  return (
    <Card className="lg:col-span-2" role="region" aria-labelledby="notifications-title">
      <CardHeader>
        <CardTitle id="notifications-title">{t("notifications.title")}</CardTitle>
        <CardDescription>{t("notifications.intro")}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-5">
        <section className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
          {usable === "ok" ? (
            <>
              <p className="text-sm" role="status">
                {thisDeviceOn ? t("notifications.on") : t("notifications.off")}
              </p>
              {thisDeviceOn ? (
                <Button variant="outline" disabled={busy} onClick={() => void turnOff()}>
                  <BellOffIcon /> {t("notifications.disable")}
                </Button>
              ) : (
                <Button disabled={busy || blocked} onClick={() => void turnOn()}>
                  <BellIcon /> {t("notifications.enable")}
                </Button>
              )}
            </>
          ) : (
            <p className="text-sm text-muted-foreground">{t(`notifications.${usable}`)}</p>
          )}
        </section>
        {blocked && !problem ? <p className="text-sm font-medium text-destructive" role="alert">{t("notifications.denied")}</p> : null}
        {problem ? <p className="text-sm font-medium text-destructive" role="alert">{problem}</p> : null}
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field label={t("notifications.when")} htmlFor="notification-mode">
            <NativeSelect id="notification-mode" value={settings.preference.mode} onChange={(event) => void choose({ mode: event.target.value as NotificationMode })}>
              {MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {t(`notifications.modes.${mode}`)}
                </option>
              ))}
            </NativeSelect>
          </Field>
          {settings.routes.length > 1 ? (
            <Field label={t("notifications.route")} htmlFor="notification-route">
              <NativeSelect id="notification-route" value={settings.preference.route} onChange={(event) => void choose({ route: event.target.value })}>
                {settings.routes.map((route) => (
                  <option key={route.name} value={route.name}>
                    {route.name === "push" ? t("notifications.routes.push") : (route.label ?? route.name)}
                  </option>
                ))}
              </NativeSelect>
            </Field>
          ) : null}
        </div>
        <div>
          <Button variant="secondary" onClick={() => void sendTest()}>
            <SendIcon /> {t("notifications.test")}
          </Button>
        </div>
        <section aria-labelledby="notification-devices" className="flex flex-col gap-2">
          <h3 id="notification-devices" className="text-sm font-semibold">
            {t("notifications.devices")}
          </h3>
          {devices.length === 0 ? (
            <p className="text-sm text-muted-foreground">{t("notifications.noDevices")}</p>
          ) : (
            <ul className="flex flex-col divide-y divide-border rounded-xl border border-border">
              {devices.map((device) => (
                <li key={device.id} className="flex items-center justify-between gap-3 px-3 py-2">
                  <div className="flex min-w-0 flex-col">
                    <span className="flex flex-wrap items-center gap-2 text-sm font-medium">
                      {deviceName(device)}
                      {device.endpoint_sha256 === mine ? <Badge variant="success">{t("notifications.thisDevice")}</Badge> : null}
                    </span>
                    <span className="text-xs text-muted-foreground">{t("notifications.added", { date: formatDate(device.created_at, i18n.language) })}</span>
                  </div>
                  <Button variant="ghost" size="sm" aria-label={t("notifications.removeLabel", { device: deviceName(device) })} onClick={() => void remove(device)}>
                    <Trash2Icon /> {t("notifications.remove")}
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </section>
      </CardContent>
    </Card>
  );
}
