import { BotIcon, CircleAlertIcon, ClockIcon, HourglassIcon, InfoIcon, ListChecksIcon } from "lucide-react";
import * as React from "react";

import type { Origin } from "@/lib/chat";
import { tintStyle, usePerson } from "@/lib/people";
import { cn } from "@/lib/utils";

import { Avatar, type KinLook } from "./avatar";
import { Badge } from "./badge";

/** How each origin looks: bubble colours, side, and the marker naming the sender. Another
 * person's bubble takes that person's own tint (see `personTintOf`). */
const STYLES: Record<Origin, { bubble: string; side: "start" | "end" | "center" }> = {
  me: { bubble: "bg-bubble-user text-bubble-user-foreground rounded-br-md", side: "end" },
  user: { bubble: "rounded-bl-md", side: "start" }, // coloured with the person's tint
  assistant: { bubble: "bg-bubble-assistant border border-border/70 shadow-soft rounded-bl-md", side: "start" },
  kin: { bubble: "bg-bubble-kin rounded-bl-md border-l-4 border-bubble-kin-accent", side: "start" },
  task: { bubble: "bg-bubble-task rounded-bl-md border-l-4 border-bubble-task-accent", side: "start" },
  cron: { bubble: "bg-bubble-cron rounded-bl-md border-l-4 border-bubble-cron-accent", side: "start" },
  tool: { bubble: "bg-muted text-muted-foreground", side: "start" },
  system: { bubble: "bg-muted text-muted-foreground text-center", side: "center" },
  error: { bubble: "bg-bubble-error border border-bubble-error-accent/40 text-foreground", side: "center" },
};

export interface ChatBubbleLabels {
  waiting: string;
  task: string;
  cron: string;
  system: string;
  error: string;
  you: string;
  /** How the language writes a time of day: "2:05 PM" or "14:05". */
  clock: "12h" | "24h";
}

export const DEFAULT_LABELS: ChatBubbleLabels = { waiting: "Waiting", task: "Task", cron: "Scheduled", system: "System", error: "Error", you: "You", clock: "12h" };

export interface ChatBubbleProps {
  origin: Origin;
  /** The sender: a user's pseudonym, a Kin's name, a task's or a cron's title. */
  name: string;
  avatarUrl?: string | null;
  /** The user or Kin who wrote it: another person's photo (when `avatarUrl` is not given) and
   * bubble tint come from it. */
  senderId?: string | null;
  /** For a Kin's message: what its generated picture is drawn from when it has no photo. */
  kin?: KinLook | null;
  /** Shown as "waiting" while the message is queued. */
  status?: string | null;
  /** When the message was stored (seconds since the epoch). */
  time?: number | null;
  labels?: ChatBubbleLabels;
  children: React.ReactNode;
  className?: string;
}

function Marker({ origin, name, labels }: { origin: Origin; name: string; labels: ChatBubbleLabels }) {
  // A long name (a task titled with a web address) is cut with an ellipsis, never past the screen.
  switch (origin) {
    case "task":
      return (
        <Badge variant="task" className="max-w-full">
          <ListChecksIcon aria-hidden className="shrink-0" /> <span className="truncate">{labels.task} · {name}</span>
        </Badge>
      );
    case "cron":
      return (
        <Badge variant="cron" className="max-w-full">
          <ClockIcon aria-hidden className="shrink-0" /> <span className="truncate">{labels.cron} · {name}</span>
        </Badge>
      );
    case "kin":
      return (
        <Badge variant="kin" className="max-w-full">
          <BotIcon aria-hidden className="shrink-0" /> <span className="truncate">{name}</span>
        </Badge>
      );
    case "me":
      return <span className="text-xs font-semibold text-muted-foreground">{labels.you}</span>;
    default:
      return <span className="max-w-full truncate text-xs font-semibold text-muted-foreground">{name}</span>;
  }
}

/** A person's or a Kin's avatar; a task or a cron gets its marker icon instead. */
function SenderPicture({ origin, name, avatarUrl, senderId, kin }: { origin: Origin; name: string; avatarUrl?: string | null; senderId?: string | null; kin?: KinLook | null }) {
  const person = usePerson(origin === "user" ? senderId : null);
  if (origin === "task" || origin === "cron") {
    const Icon = origin === "task" ? ListChecksIcon : ClockIcon;
    return (
      <span className={cn("mb-5 flex size-9 shrink-0 items-center justify-center rounded-xl", origin === "task" ? "bg-bubble-task text-bubble-task-accent" : "bg-bubble-cron text-bubble-cron-accent")} aria-hidden>
        <Icon className="size-4.5" />
      </span>
    );
  }
  if (origin === "assistant" || origin === "kin") return <Avatar name={name} src={avatarUrl} kin={kin ?? {}} size="md" className="mb-5" />;
  return <Avatar name={name} src={avatarUrl ?? person?.avatar_url} personId={origin === "user" ? (senderId ?? name) : null} size="md" className="mb-5" />;
}

/**
 * A message's time of day in the local time zone. Written by hand: the first Intl formatting
 * of a page costs tens of milliseconds, on the chat's first render.
 */
export function formatTime(seconds: number, clock: "12h" | "24h"): string {
  const date = new Date(seconds * 1000);
  const minutes = String(date.getMinutes()).padStart(2, "0");
  if (clock === "24h") return `${String(date.getHours()).padStart(2, "0")}:${minutes}`;
  return `${date.getHours() % 12 || 12}:${minutes} ${date.getHours() < 12 ? "AM" : "PM"}`;
}

/** One chat message, styled by where it came from (user, another Kin, a task, a cron, the system). */
export function ChatBubble({ origin, name, avatarUrl, senderId, kin, status, time, labels = DEFAULT_LABELS, children, className }: ChatBubbleProps) {
  const style = STYLES[origin];
  if (style.side === "center") {
    const Icon = origin === "error" ? CircleAlertIcon : InfoIcon;
    return (
      <div data-origin={origin} className={cn("flex justify-center px-2 animate-rise-in", className)} role={origin === "error" ? "alert" : undefined}>
        <div className={cn("flex max-w-[85%] items-start gap-2 rounded-2xl px-4 py-2 text-sm", style.bubble)}>
          <Icon className={cn("mt-0.5 size-4 shrink-0", origin === "error" ? "text-bubble-error-accent" : "")} aria-label={origin === "error" ? labels.error : labels.system} />
          <div className="min-w-0">{children}</div>
        </div>
      </div>
    );
  }
  const end = style.side === "end";
  const waiting = status === "queued";
  return (
    <div data-origin={origin} className={cn("group flex items-end gap-2.5 animate-rise-in", end && "flex-row-reverse", className)}>
      <SenderPicture origin={origin} name={name} avatarUrl={avatarUrl} senderId={senderId} kin={kin} />
      <div className={cn("flex min-w-0 max-w-[min(44rem,85%)] flex-col gap-1", end ? "items-end" : "items-start")}>
        <Marker origin={origin} name={name} labels={labels} />
        <div
          className={cn("max-w-full rounded-2xl px-4 py-2.5 text-[0.935rem] leading-relaxed break-words", style.bubble, waiting && "opacity-75")}
          style={origin === "user" ? tintStyle(senderId ?? name) : undefined}
          data-bubble
        >
          {children}
        </div>
        <div className="flex h-4 items-center gap-2 text-[0.7rem] text-muted-foreground">
          {waiting ? (
            <span className="inline-flex items-center gap-1 font-semibold" data-status="waiting">
              <HourglassIcon className="size-3" aria-hidden /> {labels.waiting}
            </span>
          ) : null}
          {time ? <time dateTime={new Date(time * 1000).toISOString()} className="opacity-0 transition-opacity group-hover:opacity-100 group-focus-within:opacity-100">{formatTime(time, labels.clock)}</time> : null}
        </div>
      </div>
    </div>
  );
}

/** Three soft dots while a Kin is writing. */
export function TypingIndicator({ label }: { label: string }) {
  return (
    <div className="inline-flex w-fit items-center gap-1 rounded-2xl rounded-bl-md border border-border/70 bg-bubble-assistant px-4 py-3 shadow-soft" role="status" aria-label={label}>
      {[0, 150, 300].map((delay) => (
        <span key={delay} className="size-1.5 rounded-full bg-muted-foreground animate-typing" style={{ animationDelay: `${delay}ms` }} />
      ))}
    </div>
  );
}
