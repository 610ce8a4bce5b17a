/**
 * After an administrator adds or changes a connection, the truth about its connection: the
 * server connects in the background (the answer says `starting`), so the toast first says
 * "connecting…", then, once the state settles, that it is connected or why it cannot connect
 * yet (worded for its type: the mail server's sign-in, Telegram's bot token…). While one is
 * connecting, the list is asked again every second instead of every few.
 */
import * as React from "react";
import { useTranslation } from "react-i18next";

import { useToast } from "@/components/ui/toast";
import { channelProblemText } from "@/lib/channel-problems";
import type { Channel } from "@/lib/channels";

/** How often the list is asked again while a connection is being made. */
const CONNECTING_REFRESH_MS = 1000;

/** Watch `channels` (the list, kept fresh by `reload`; `show` puts a connection as the server
 * just answered about it in the list); returns the function to call with such an answer
 * (`added`: a new connection, else a change). */
export function useFirstConnection(channels: Channel[], show: (channel: Channel) => void, reload: () => void): (channel: Channel, added: boolean) => void {
  const { t } = useTranslation();
  const { toast } = useToast();
  // The connections being made, and whether the list has shown each yet (one gone from it
  // since was deleted).
  const [watched, setWatched] = React.useState<Record<string, boolean>>({});

  React.useEffect(() => {
    const done: string[] = [];
    const seen: string[] = [];
    for (const [id, listed] of Object.entries(watched)) {
      const channel = channels.find((candidate) => candidate.id === id);
      if (!channel) {
        if (listed) done.push(id);
        continue;
      }
      if (!listed) seen.push(id);
      if (channel.state === "starting") continue;
      done.push(id);
      if (channel.state === "running") toast({ title: t("channels.connected", { name: channel.label }), tone: "success" });
      else if (channel.state === "failing" || channel.state === "retrying") {
        toast({ title: t("channels.cannotConnect", { name: channel.label }), description: channelProblemText(t, "state", channel.last_error_code, channel.type), tone: "error" });
      }
    }
    if (!done.length && !seen.length) return;
    setWatched((current) => {
      const next = { ...current };
      for (const id of seen) next[id] = true;
      for (const id of done) delete next[id];
      return next;
    });
  }, [channels, watched, t, toast]);

  const connecting = Object.keys(watched).length > 0;
  React.useEffect(() => {
    if (!connecting) return;
    const timer = window.setInterval(reload, CONNECTING_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [connecting, reload]);

  return React.useCallback(
    (channel: Channel, added: boolean) => {
      const starting = channel.state === "starting";
      const key = added ? (starting ? "channels.createdConnecting" : "channels.created") : starting ? "channels.savedConnecting" : "channels.saved";
      toast({ title: t(key, { name: channel.label }), tone: starting ? "info" : "success" });
      show(channel);
      if (starting) setWatched((current) => ({ ...current, [channel.id]: false }));
      reload();
    },
    [show, reload, t, toast],
  );
}
