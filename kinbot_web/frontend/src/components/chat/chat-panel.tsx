import { ArrowDownIcon, MenuIcon, SearchIcon, SettingsIcon, WifiOffIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";

import { Composer } from "@/components/app/composer";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { TypingIndicator } from "@/components/ui/chat-bubble";
import { useToast } from "@/components/ui/toast";
import { useApprovalFeed } from "@/lib/approvals";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { chatReducer, emptyChat, type Draft } from "@/lib/chat";
import type { EventStream } from "@/lib/events";
import type { Kin, Message, User } from "@/lib/types";
import { cn } from "@/lib/utils";

import { DropOverlay, useChatUploads } from "./chat-uploads";
import { HistorySearch } from "./history-search";
import { LiveTurns, MessageView } from "./message-view";
import { StarterPrompts } from "./starter-prompts";

const PAGE = 50;
/** How close to the bottom (px) still counts as reading the latest messages. */
const NEAR_BOTTOM = 64;

interface Page {
  messages: Message[];
  next_before: number | null;
  /** Where the next newer page starts (pages asked with `after` or `around`). */
  next_after?: number | null;
  /** What the running turn has not stored yet (latest page only). */
  draft?: Draft | null;
}

/** Whether `message` shows as something to read (tool results and bare tool calls do not). */
function readable(message: Message): boolean {
  return message.role !== "tool" && !(message.role === "assistant" && !message.content && message.tool_calls?.length);
}

/** The session of one Kin: its history, live updates from the event stream, and the composer. */
export function ChatPanel({ kin, me, kins = [], stream, onOpenSidebar }: { kin: Kin; me: User; kins?: Kin[]; stream: EventStream; onOpenSidebar?: () => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [chat, dispatch] = React.useReducer(chatReducer, emptyChat);
  useApprovalFeed(kin.id, stream);
  const [connection, setConnection] = React.useState(stream.state);
  const top = React.useRef<HTMLDivElement>(null);
  const scroller = React.useRef<HTMLDivElement>(null);
  const loadingOlder = React.useRef(false);
  // Following the conversation: new messages and streamed text scroll it only while the
  // reader is at the bottom; scrolled up, a marker says what arrived below instead.
  const follow = React.useRef(true);
  const uploads = useChatUploads(kin.id);
  const avatars = React.useMemo<Record<string, string | null>>(
    () => ({ ...Object.fromEntries(kins.map((other) => [other.id, other.avatar_url])), [me.id]: me.avatar_url }),
    [kins, me],
  );

  // A page asked for before the chat was reset (a resync, back to the latest) is dropped.
  const resets = React.useRef(0);
  const reset = React.useCallback(() => {
    resets.current += 1;
    dispatch({ type: "reset" });
  }, []);

  const loadLatest = React.useCallback(async () => {
    const asked = resets.current;
    const page = await api<Page>(`/api/kins/${kin.id}/messages?limit=${PAGE}`);
    if (asked !== resets.current) return;
    // Rendered in slices (a transition): a long history does not freeze the page.
    React.startTransition(() => dispatch({ type: "page", messages: page.messages, nextBefore: page.next_before, draft: page.draft }));
  }, [kin.id]);

  React.useEffect(() => {
    reset();
    void loadLatest().catch((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }));
    const mine = (kinId: string) => kinId === kin.id;
    const off = [
      stream.on("message", ({ message }) => mine(message.kin_id) && dispatch({ type: "message", message })),
      stream.on("message.status", (data) => mine(data.kin_id) && dispatch({ type: "status", data })),
      stream.on("message.superseded", (data) => mine(data.kin_id) && dispatch({ type: "superseded", data })),
      stream.on("message.redacted", (data) => mine(data.kin_id) && dispatch({ type: "redacted", data })),
      stream.on("message.restored", (data) => mine(data.kin_id) && dispatch({ type: "redacted", data })),
      stream.on("kin.delta", (data) => mine(data.kin_id) && dispatch({ type: "delta", data })),
      stream.on("kin.tool", (data) => mine(data.kin_id) && dispatch({ type: "tool", data })),
      stream.onResync(() => {
        follow.current = true;
        reset();
        void loadLatest();
      }),
      stream.onState(setConnection),
    ];
    return () => off.forEach((unsubscribe) => unsubscribe());
  }, [kin.id, stream, loadLatest, reset, toast, t]);

  const [atBottom, setAtBottom] = React.useState(true);
  const [readUpTo, setReadUpTo] = React.useState<number | null>(null);
  const [streamedBelow, setStreamedBelow] = React.useState(false);
  const [highlighted, setHighlighted] = React.useState<number | null>(null);
  const [searching, setSearching] = React.useState(false);
  const jumpTarget = React.useRef<number | null>(null);
  const detached = chat.nextAfter !== null;

  const toBottom = React.useCallback(() => {
    const element = scroller.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, []);

  const onScroll = React.useCallback(() => {
    const element = scroller.current;
    if (!element) return;
    const near = element.scrollHeight - element.scrollTop - element.clientHeight <= NEAR_BOTTOM;
    follow.current = near && !detached;
    setAtBottom(near);
  }, [detached]);
  React.useEffect(() => {
    follow.current = follow.current && !detached;
  }, [detached]);

  const lastId = chat.messages.at(-1)?.id;
  const streamingText = Object.values(chat.streaming)
    .map((streamed) => streamed.text)
    .join("");
  React.useEffect(() => {
    if (follow.current) toBottom();
    else if (streamingText) setStreamedBelow(true);
  }, [lastId, streamingText.length, streamingText, toBottom]);
  // What is at the bottom while the reader is there counts as read.
  const reading = atBottom && !detached;
  React.useEffect(() => {
    if (!reading) return;
    setReadUpTo(lastId ?? null);
    setStreamedBelow(false);
  }, [reading, lastId]);
  // Text rendered later (Markdown, pictures) grows the chat: stay at the bottom if following.
  const content = React.useRef<HTMLDivElement>(null);
  React.useEffect(() => {
    const element = content.current;
    if (!element || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => follow.current && toBottom());
    observer.observe(element);
    return () => observer.disconnect();
  }, [toBottom]);

  const unseen = readUpTo === null ? 0 : chat.messages.filter((message) => message.id > readUpTo && readable(message)).length;

  /** Back to the latest messages: the window around a search result makes way for them. */
  const backToLatest = React.useCallback(() => {
    follow.current = true;
    setHighlighted(null);
    if (chat.nextAfter !== null) {
      reset();
      void loadLatest();
    } else {
      toBottom();
    }
  }, [chat.nextAfter, loadLatest, reset, toBottom]);

  /** Show message `id` in its context, highlighted: from the loaded ones, or the page around it. */
  const jumpTo = React.useCallback(
    async (id: number) => {
      follow.current = false;
      if (!chat.messages.some((message) => message.id === id)) {
        try {
          const asked = resets.current;
          const page = await api<Page>(`/api/kins/${kin.id}/messages?around=${id}&limit=${PAGE}`);
          if (asked !== resets.current) return;
          dispatch({ type: "window", messages: page.messages, nextBefore: page.next_before, nextAfter: page.next_after ?? null });
        } catch (error) {
          toast({ title: t("errors.generic"), description: (error as Error).message, tone: "error" });
          return;
        }
      }
      jumpTarget.current = id;
      setHighlighted(id);
    },
    [chat.messages, kin.id, toast, t],
  );
  // `?message=<id>` (a notification's link): show that message once the history is there.
  const [search, setSearch] = useSearchParams();
  const linked = Number(search.get("message")) || null;
  React.useEffect(() => {
    if (linked === null || !chat.loaded) return;
    setSearch(
      (params) => {
        params.delete("message");
        return params;
      },
      { replace: true },
    );
    void jumpTo(linked);
  }, [linked, chat.loaded, jumpTo, setSearch]);
  React.useEffect(() => {
    const id = jumpTarget.current;
    const element = id === null ? null : scroller.current?.querySelector<HTMLElement>(`[data-message-id="${id}"]`);
    if (!element) return;
    jumpTarget.current = null;
    element.scrollIntoView({ block: "center" });
    element.focus({ preventScroll: true });
  }, [chat.messages, highlighted]);

  const loadingNewer = React.useRef(false);
  const loadNewer = React.useCallback(async () => {
    if (chat.nextAfter === null || loadingNewer.current) return;
    loadingNewer.current = true;
    try {
      const asked = resets.current;
      const page = await api<Page>(`/api/kins/${kin.id}/messages?limit=${PAGE}&after=${chat.nextAfter}`);
      if (asked !== resets.current) return;
      dispatch({ type: "newer", messages: page.messages, nextAfter: page.next_after ?? null });
    } finally {
      loadingNewer.current = false;
    }
  }, [chat.nextAfter, kin.id]);
  const end = React.useRef<HTMLDivElement>(null);
  React.useEffect(() => {
    const sentinel = end.current;
    if (!sentinel || typeof IntersectionObserver === "undefined" || chat.nextAfter === null) return;
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && void loadNewer(), { root: scroller.current, rootMargin: "0px 0px 200px 0px" });
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [chat.nextAfter, loadNewer]);

  const loadOlder = React.useCallback(async () => {
    if (chat.nextBefore === null || loadingOlder.current) return;
    loadingOlder.current = true;
    const element = scroller.current;
    const fromBottom = element ? element.scrollHeight - element.scrollTop : 0;
    try {
      const asked = resets.current;
      const page = await api<Page>(`/api/kins/${kin.id}/messages?limit=${PAGE}&before=${chat.nextBefore}`);
      if (asked !== resets.current) return;
      dispatch({ type: "page", messages: page.messages, nextBefore: page.next_before });
      // Keep the message being read where it was once older ones are added above it.
      requestAnimationFrame(() => {
        if (element) element.scrollTop = element.scrollHeight - fromBottom;
      });
    } finally {
      loadingOlder.current = false;
    }
  }, [chat.nextBefore, kin.id]);

  // Infinite scroll: reaching the top loads the previous page (the button stays for keyboards).
  React.useEffect(() => {
    const sentinel = top.current;
    if (!sentinel || typeof IntersectionObserver === "undefined" || chat.nextBefore === null) return;
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && void loadOlder(), { root: scroller.current, rootMargin: "200px 0px 0px 0px" });
    observer.observe(sentinel);
    return () => observer.disconnect();
  }, [chat.nextBefore, loadOlder]);

  /** Sends a message; `false` (and a toast saying why) when it was not sent. */
  async function send(content: string, attachments: string[]): Promise<boolean> {
    try {
      const body = attachments.length ? { content, attachments } : { content };
      // One's own message is read at the bottom, with what answers it.
      backToLatest();
      const { message } = await api<{ message: Message }>(`/api/kins/${kin.id}/messages`, { body });
      dispatch({ type: "message", message });
      uploads.clear();
      return true;
    } catch (error) {
      toast({ title: t("chat.notSent"), description: errorText(t, error), tone: "error" });
      return false;
    }
  }

  async function stop() {
    await api(`/api/kins/${kin.id}/stop`, { method: "POST" }).catch(() => undefined);
  }

  const busy = kin.state === "thinking";
  return (
    <main className="relative flex h-full min-w-0 flex-1 flex-col" aria-label={kin.name} {...uploads.dropZone}>
      <DropOverlay shown={uploads.dragging} />
      <header className="flex items-center gap-3 border-b border-border/70 px-4 py-3">
        <Button variant="ghost" size="icon" className="md:hidden" onClick={onOpenSidebar} aria-label={t("sidebar.openMenu")}>
          <MenuIcon />
        </Button>
        <Avatar name={kin.name} src={kin.avatar_url} kin={kin} status={busy ? "thinking" : kin.state === "error" ? "error" : null} />
        <div className="min-w-0 flex-1">
          <h1 className="truncate font-bold">{kin.name}</h1>
          <p className="truncate text-xs text-muted-foreground">{kin.role}</p>
        </div>
        <Button variant="ghost" size="icon" onClick={() => setSearching(true)} aria-label={t("chatflow.search.open")}>
          <SearchIcon />
        </Button>
        <Button asChild variant="ghost" size="icon">
          <Link to={`/kins/${kin.id}/settings`} aria-label={t("kinSettings.open")}>
            <SettingsIcon />
          </Link>
        </Button>
      </header>
      {connection === "reconnecting" ? (
        <div className="flex items-center justify-center gap-2 bg-warning/20 px-4 py-1.5 text-xs font-semibold" role="status">
          <WifiOffIcon className="size-3.5" aria-hidden /> {t("chat.reconnecting")}
        </div>
      ) : null}
      <div ref={scroller} onScroll={onScroll} className="min-h-0 flex-1 overflow-y-auto" aria-live="polite">
        <div ref={content} className="mx-auto flex max-w-3xl flex-col gap-4 px-4 py-6">
          <div ref={top} aria-hidden />
          {chat.nextBefore !== null ? (
            <Button variant="ghost" size="sm" className="self-center" onClick={() => void loadOlder()}>
              {t("chat.loadOlder")}
            </Button>
          ) : chat.loaded && chat.messages.length > 0 ? (
            <p className="text-center text-xs text-muted-foreground">{t("chat.beginning", { name: kin.name })}</p>
          ) : null}
          {chat.loaded && chat.messages.length === 0 ? <StarterPrompts kin={kin} onPick={(text) => void send(text, [])} /> : null}
          {chat.messages.map((message) => (
            <div
              key={message.id}
              data-message-id={message.id}
              data-highlighted={highlighted === message.id || undefined}
              tabIndex={highlighted === message.id ? -1 : undefined}
              className={cn("scroll-my-24 rounded-2xl outline-none empty:hidden", highlighted === message.id && "ring-2 ring-primary ring-offset-4 ring-offset-background")}
            >
              <MessageView message={message} me={me} kin={kin} avatars={avatars} kins={kins} />
            </div>
          ))}
          {detached ? (
            <Button variant="ghost" size="sm" className="self-center" onClick={() => void loadNewer()}>
              {t("chatflow.loadNewer")}
            </Button>
          ) : (
            <>
              <LiveTurns chat={chat} name={kin.name} avatarUrl={kin.avatar_url} kin={kin} />
              {busy ? (
                <div className="flex items-end gap-2.5 pl-11.5">
                  <TypingIndicator label={t("chat.typing", { name: kin.name })} />
                </div>
              ) : null}
            </>
          )}
          <div ref={end} aria-hidden />
        </div>
      </div>
      {detached || (!atBottom && (unseen > 0 || streamedBelow)) ? (
        <div className="pointer-events-none relative z-10 mx-auto flex w-full max-w-3xl justify-center px-4">
          <Button type="button" size="sm" variant="secondary" className="pointer-events-auto absolute -top-12 rounded-full shadow-lifted" onClick={backToLatest} data-new-below>
            <ArrowDownIcon aria-hidden />
            {detached ? t("chatflow.backToLatest") : unseen > 0 ? t("chatflow.newMessages", { count: unseen }) : t("chatflow.newBelow")}
          </Button>
        </div>
      ) : null}
      <div className="mx-auto w-full max-w-3xl px-4 pb-4">
        <Composer
          autoFocus
          kinName={kin.name}
          busy={busy}
          onSend={send}
          onStop={() => void stop()}
          files={uploads.files}
          onAddFiles={uploads.addFiles}
          onRemoveFile={uploads.removeFile}
        />
      </div>
      <HistorySearch kin={kin} open={searching} onOpenChange={setSearching} onChoose={(id) => void jumpTo(id)} />
    </main>
  );
}
