import { FileUpIcon, MenuIcon, SettingsIcon, WifiOffIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { Composer, type PendingFile } from "@/components/app/composer";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { TypingIndicator } from "@/components/ui/chat-bubble";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { chatReducer, emptyChat, type Draft } from "@/lib/chat";
import type { EventStream } from "@/lib/events";
import type { Attachment, Kin, Message, User } from "@/lib/types";
import { cn } from "@/lib/utils";

import { LiveTurns, MessageView } from "./message-view";
import { StarterPrompts } from "./starter-prompts";

const PAGE = 50;

interface Page {
  messages: Message[];
  next_before: number | null;
  /** What the running turn has not stored yet (latest page only). */
  draft?: Draft | null;
}

/** The session of one Kin: its history, live updates from the event stream, and the composer. */
export function ChatPanel({ kin, me, kins = [], stream, onOpenSidebar }: { kin: Kin; me: User; kins?: Kin[]; stream: EventStream; onOpenSidebar?: () => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [chat, dispatch] = React.useReducer(chatReducer, emptyChat);
  const [connection, setConnection] = React.useState(stream.state);
  const bottom = React.useRef<HTMLDivElement>(null);
  const top = React.useRef<HTMLDivElement>(null);
  const scroller = React.useRef<HTMLDivElement>(null);
  const loadingOlder = React.useRef(false);
  const [files, setFiles] = React.useState<PendingFile[]>([]);
  const [dragging, setDragging] = React.useState(false);
  const nextFileKey = React.useRef(1);
  const avatars = React.useMemo<Record<string, string | null>>(
    () => ({ ...Object.fromEntries(kins.map((other) => [other.id, other.avatar_url])), [me.id]: me.avatar_url }),
    [kins, me],
  );

  const loadLatest = React.useCallback(async () => {
    const page = await api<Page>(`/api/kins/${kin.id}/messages?limit=${PAGE}`);
    // Rendered in slices (a transition): a long history does not freeze the page.
    React.startTransition(() => dispatch({ type: "page", messages: page.messages, nextBefore: page.next_before, draft: page.draft }));
  }, [kin.id]);

  React.useEffect(() => {
    dispatch({ type: "reset" });
    void loadLatest().catch((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }));
    const mine = (kinId: string) => kinId === kin.id;
    const off = [
      stream.on("message", ({ message }) => mine(message.kin_id) && dispatch({ type: "message", message })),
      stream.on("message.status", (data) => mine(data.kin_id) && dispatch({ type: "status", data })),
      stream.on("message.redacted", (data) => mine(data.kin_id) && dispatch({ type: "redacted", data })),
      stream.on("message.restored", (data) => mine(data.kin_id) && dispatch({ type: "redacted", data })),
      stream.on("kin.delta", (data) => mine(data.kin_id) && dispatch({ type: "delta", data })),
      stream.on("kin.tool", (data) => mine(data.kin_id) && dispatch({ type: "tool", data })),
      stream.onResync(() => {
        dispatch({ type: "reset" });
        void loadLatest();
      }),
      stream.onState(setConnection),
    ];
    return () => off.forEach((unsubscribe) => unsubscribe());
  }, [kin.id, stream, loadLatest, toast, t]);

  const lastId = chat.messages.at(-1)?.id;
  const streamingText = Object.values(chat.streaming)
    .map((streamed) => streamed.text)
    .join("");
  React.useEffect(() => {
    bottom.current?.scrollIntoView({ block: "end" });
  }, [lastId, streamingText.length]);

  const loadOlder = React.useCallback(async () => {
    if (chat.nextBefore === null || loadingOlder.current) return;
    loadingOlder.current = true;
    const element = scroller.current;
    const fromBottom = element ? element.scrollHeight - element.scrollTop : 0;
    try {
      const page = await api<Page>(`/api/kins/${kin.id}/messages?limit=${PAGE}&before=${chat.nextBefore}`);
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

  function addFiles(chosen: File[]) {
    for (const file of chosen) {
      const key = nextFileKey.current++;
      setFiles((current) => [...current, { key, name: file.name }]);
      const body = new FormData();
      body.append("file", file);
      api<{ upload: Attachment }>(`/api/kins/${kin.id}/uploads`, { body })
        .then(({ upload }) => setFiles((current) => current.map((pending) => (pending.key === key ? { ...pending, upload } : pending))))
        .catch((error: Error) => {
          setFiles((current) => current.filter((pending) => pending.key !== key));
          toast({ title: file.name, description: errorText(t, error), tone: "error" });
        });
    }
  }

  async function send(content: string, attachments: string[]) {
    try {
      const body = attachments.length ? { content, attachments } : { content };
      const { message } = await api<{ message: Message }>(`/api/kins/${kin.id}/messages`, { body });
      dispatch({ type: "message", message });
      setFiles([]);
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
    }
  }

  async function stop() {
    await api(`/api/kins/${kin.id}/stop`, { method: "POST" }).catch(() => undefined);
  }

  const busy = kin.state === "thinking";
  return (
    <main
      className="relative flex h-full min-w-0 flex-1 flex-col"
      aria-label={kin.name}
      onDragOver={(event) => {
        if (!event.dataTransfer.types.includes("Files")) return;
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (event.currentTarget === event.target) setDragging(false);
      }}
      onDrop={(event) => {
        if (!event.dataTransfer.files.length) return;
        event.preventDefault();
        setDragging(false);
        addFiles(Array.from(event.dataTransfer.files));
      }}
    >
      <div
        className={cn(
          "pointer-events-none absolute inset-3 z-20 flex items-center justify-center rounded-3xl border-2 border-dashed border-primary bg-background/85 text-primary transition-opacity duration-150",
          dragging ? "opacity-100" : "opacity-0",
        )}
        aria-hidden
      >
        <FileUpIcon className="size-10" />
      </div>
      <header className="flex items-center gap-3 border-b border-border/70 px-4 py-3">
        <Button variant="ghost" size="icon" className="md:hidden" onClick={onOpenSidebar} aria-label={t("sidebar.openMenu")}>
          <MenuIcon />
        </Button>
        <Avatar name={kin.name} src={kin.avatar_url} kin={kin} status={busy ? "thinking" : kin.state === "error" ? "error" : null} />
        <div className="min-w-0 flex-1">
          <h1 className="truncate font-bold">{kin.name}</h1>
          <p className="truncate text-xs text-muted-foreground">{kin.role}</p>
        </div>
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
      <div ref={scroller} className="min-h-0 flex-1 overflow-y-auto" aria-live="polite">
        <div className="mx-auto flex max-w-3xl flex-col gap-4 px-4 py-6">
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
            <MessageView key={message.id} message={message} me={me} kin={kin} avatars={avatars} />
          ))}
          <LiveTurns chat={chat} name={kin.name} avatarUrl={kin.avatar_url} kin={kin} />
          {busy ? (
            <div className="flex items-end gap-2.5 pl-11.5">
              <TypingIndicator label={t("chat.typing", { name: kin.name })} />
            </div>
          ) : null}
          <div ref={bottom} />
        </div>
      </div>
      <div className="mx-auto w-full max-w-3xl px-4 pb-4">
        <Composer
          kinName={kin.name}
          busy={busy}
          onSend={send}
          onStop={() => void stop()}
          files={files}
          onAddFiles={addFiles}
          onRemoveFile={(key) => setFiles((current) => current.filter((file) => file.key !== key))}
        />
      </div>
    </main>
  );
}
