import { LoaderCircleIcon, MessageCircleQuestionIcon, ReplaceIcon, SquareIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link, useInRouterContext } from "react-router";

import type { KinLook } from "@/components/ui/avatar";
import { Badge } from "@/components/ui/badge";
import { ChatBubble, type ChatBubbleLabels } from "@/components/ui/chat-bubble";
import { originOf, type ChatState, type ToolActivity } from "@/lib/chat";
import { readableName } from "@/lib/tool-descriptions";
import type { Kin, Message, User } from "@/lib/types";
import { cn } from "@/lib/utils";

import { Attachments } from "./cards/attachments";
import { ErrorCard } from "./cards/error-card";
import { MessageActions } from "./cards/message-actions";
import { errorMetaOf, isStopped, isSuperseded, kinMessageKind, taskEndOf, taskQuestionOf, type MessageWithMeta } from "./cards/meta";
import { useCallShown, useLatestShownId, useShownMessage } from "./cards/session-store";
import { TaskCard } from "./cards/task-card";
import { ToolCards } from "./cards/tool-card";
import { OriginBadge, originMetaOf } from "./origin-badge";
import { hasPendingSecrets, PendingSecretsText } from "./pending-secrets";
import { UndeliveredSign, undeliveredOf } from "./undelivered-sign";

type MarkdownComponent = (typeof import("@/components/markdown"))["default"];

// Fetched as soon as the chat's own code is, alongside its first page of messages.
let Markdown: MarkdownComponent | null = null;
const markdownLoaded = import("@/components/markdown").then((module) => {
  Markdown = module.default;
});

/**
 * Message text: plain while the Markdown renderer loads, then rendered and sanitised. The
 * switch is a transition, which React renders in slices: a long history does not freeze the
 * page. Memoised on the text: a streamed token re-renders the chat, not every message's Markdown.
 */
export const MessageText = React.memo(function MessageText({ text, breaks = false }: { text: string; breaks?: boolean }) {
  const [Rich, setRich] = React.useState<MarkdownComponent | null>(() => Markdown);
  React.useEffect(() => {
    if (Rich) return;
    let mounted = true;
    void markdownLoaded.then(() => mounted && React.startTransition(() => setRich(() => Markdown)));
    return () => {
      mounted = false;
    };
  }, [Rich]);
  return Rich ? <Rich text={text} breaks={breaks} /> : <p className="whitespace-pre-wrap">{text}</p>;
});

const bubbleLabels = new Map<string, ChatBubbleLabels>();

/** The bubble labels in the current language (made once a language, not once a message). */
export function useBubbleLabels(): ChatBubbleLabels {
  const { t, i18n } = useTranslation();
  let labels = bubbleLabels.get(i18n.language);
  if (!labels) {
    labels = {
      waiting: t("chat.waiting"),
      task: t("chat.task"),
      cron: t("chat.cron"),
      system: t("chat.system"),
      error: t("chat.error"),
      you: t("chat.you"),
      clock: t("chat.clock") === "24h" ? "24h" : "12h",
    };
    bubbleLabels.set(i18n.language, labels);
  }
  return labels;
}

/** What running turns have streamed and are running but not stored yet, in a chat. */
export function LiveTurns({ chat, name, avatarUrl, kin }: { chat: Pick<ChatState, "streaming" | "tools"> & { messages?: readonly Message[] }; name: string; avatarUrl?: string | null; kin?: KinLook | null }) {
  const labels = useBubbleLabels();
  // The calls of the replies in the same state: those show as cards, not as running lines.
  const stored = React.useMemo(() => new Set((chat.messages ?? []).flatMap((message) => (message.tool_calls ?? []).map((call) => call.id))), [chat.messages]);
  return (
    <>
      {Object.entries(chat.streaming).map(([turn, streamed]) =>
        streamed.text ? (
          <ChatBubble key={`stream-${turn}`} origin="assistant" name={name} avatarUrl={avatarUrl} kin={kin} labels={labels}>
            <MessageText text={streamed.text} />
          </ChatBubble>
        ) : null,
      )}
      {Object.entries(chat.tools).map(([turn, tools]) => (
        <RunningTools key={`tools-${turn}`} tools={tools.filter((tool) => !stored.has(tool.id))} />
      ))}
    </>
  );
}

/** The tool calls a turn is running now whose reply is not shown yet, one compact line each
 * (a stored reply shows its calls as cards, with their state). */
function RunningTools({ tools }: { tools: ToolActivity[] }) {
  const { t } = useTranslation();
  const running = tools.filter((tool) => tool.status === "running");
  if (running.length === 0) return null;
  return (
    <ul className="flex flex-col gap-1 pl-12 empty:hidden" aria-label={t("chat.toolCalls", { count: running.length })}>
      {running.map((tool) => (
        <RunningTool key={tool.id} tool={tool} />
      ))}
    </ul>
  );
}

function RunningTool({ tool }: { tool: ToolActivity }) {
  const { t } = useTranslation();
  if (useCallShown(tool.id)) return null;
  return (
    <li className="flex w-fit items-center gap-1.5 rounded-xl bg-muted/70 px-3 py-1.5 text-xs font-semibold text-muted-foreground" data-running-tool={tool.name}>
      <LoaderCircleIcon className="size-3.5 animate-spin motion-reduce:animate-none" aria-hidden />
      {t("chat.toolRunning", { name: readableName(tool.name) })}
    </li>
  );
}

export interface MessageViewProps {
  message: Message;
  /** The signed-in user (with a role: the sender or an administrator handles hidden secrets). */
  me: (Pick<User, "id"> & Partial<Pick<User, "role">>) | null;
  /** The Kin whose session this is (names and pictures its replies). */
  kin: Pick<Kin, "id" | "name" | "avatar_url"> & Partial<Pick<Kin, "role" | "expertise">>;
  /** Pictures of other senders by id (users and Kins). */
  avatars?: Record<string, string | null>;
  /** The other Kins, whose role draws the picture of a message one of them sent. */
  kins?: readonly (Pick<Kin, "id"> & KinLook)[];
  /** A sub-Kin's session (a task's page): read, never answered again or retried from here. */
  readOnly?: boolean;
}

/** Under a task's question in its parent's chat: how to answer it, and a way to the task. */
export function TaskQuestionHint({ message, kinName }: { message: Message; kinName: string }) {
  const { t } = useTranslation();
  const inRouter = useInRouterContext();
  const href = message.task_id ? `/tasks/${message.task_id}` : null;
  const className = "font-semibold text-foreground underline underline-offset-2";
  return (
    <div className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 rounded-xl bg-warning/15 px-3 py-1.5 text-xs" data-task-question>
      <MessageCircleQuestionIcon className="size-3.5 shrink-0" aria-hidden />
      <span className="font-semibold">{t("chat.taskQuestion", { task: message.sender_name ?? t("chat.task") })}</span>
      <span className="text-muted-foreground">{t("chat.taskQuestionHint", { name: kinName })}</span>
      {href ? (
        inRouter ? (
          <Link to={href} className={className}>
            {t("chat.openTask")}
          </Link>
        ) : (
          <a href={href} className={className}>
            {t("chat.openTask")}
          </a>
        )
      ) : null}
    </div>
  );
}

/** The footer of a bubble: "Stopped" or "Replaced" when it applies, then its actions. */
function MessageFooter({ message, kin, latest }: { message: MessageWithMeta; kin: MessageViewProps["kin"]; latest: boolean }) {
  const { t } = useTranslation();
  const stopped = isStopped(message);
  const superseded = isSuperseded(message);
  const regenerate = latest && !superseded && message.role === "assistant" && message.kin_id === kin.id ? { kinId: kin.id, kinName: kin.name } : null;
  if (!stopped && !superseded && !message.content && !regenerate) return null;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1">
      {stopped ? (
        <Badge variant="outline" title={t("cards.actions.stoppedNote")} data-stopped>
          <SquareIcon aria-hidden /> {t("cards.actions.stopped")}
        </Badge>
      ) : null}
      {superseded ? (
        <Badge variant="outline" title={t("cards.actions.replacedNote")} data-superseded>
          <ReplaceIcon aria-hidden /> {t("cards.actions.replaced")}
        </Badge>
      ) : null}
      <MessageActions text={hasPendingSecrets(message) ? "" : message.content} regenerate={regenerate} />
    </div>
  );
}

/** A message from another Kin: whether it asks, answers or informs, above its text. */
function KinMessageHeading({ message }: { message: Message }) {
  const { t } = useTranslation();
  const kind = kinMessageKind(message);
  if (!kind) return null;
  return (
    <p className="mb-0.5 text-xs font-semibold text-muted-foreground" data-kin-message={kind}>
      {t(`cards.kin.${kind}`, { name: message.sender_name ?? "" })}
    </p>
  );
}

/**
 * One stored message: a chat bubble, or a card for a task's or a cron run's end; an
 * assistant reply's tool calls show as cards under it, each with its result (tool results
 * show nowhere else). Errors say what happened and offer Retry; a superseded message stays,
 * dimmed and marked "Replaced"; a stopped reply is marked "Stopped".
 */
export function MessageView({ message: stored, me, kin, avatars = {}, kins = [], readOnly = false }: MessageViewProps) {
  const message = stored as MessageWithMeta;
  const labels = useBubbleLabels();
  useShownMessage(message);
  const shownLatestId = useLatestShownId(message.kin_id);
  const latestId = readOnly ? null : shownLatestId;
  const origin = originOf(message, me?.id ?? null);
  const dimmed = isSuperseded(message) ? "opacity-70" : undefined;
  // A tool's result (failed ones too) shows in its call's card.
  if (message.role === "tool") return null;
  if (taskEndOf(message)) {
    return <TaskCard message={message} kinName={kin.name} labels={labels} className={dimmed} renderText={(text) => <MessageText text={text} />} />;
  }
  if (origin === "assistant" && !message.content && message.tool_calls?.length) {
    return (
      <div className={cn("pl-11.5", dimmed)} data-tool-cards>
        <ToolCards message={message} canAlwaysAllow={me?.role === "admin"} />
        {isSuperseded(message) ? <MessageFooter message={message} kin={kin} latest={false} /> : null}
      </div>
    );
  }
  const error = errorMetaOf(message);
  if (error) {
    return (
      <ChatBubble origin="error" name={labels.error} time={message.created_at} labels={labels} className={dimmed}>
        <ErrorCard meta={error} kinId={kin.id} kinName={kin.name} canRetry={!isSuperseded(message) && latestId === message.id && message.kin_id === kin.id} />
        {isSuperseded(message) ? <MessageFooter message={{ ...message, content: "" }} kin={kin} latest={false} /> : null}
      </ChatBubble>
    );
  }
  const name = origin === "assistant" ? kin.name : (message.sender_name ?? labels.system);
  const cameFrom = originMetaOf(message);
  const notDelivered = origin === "assistant" ? undeliveredOf(message) : null;
  const avatarUrl = origin === "assistant" ? kin.avatar_url : message.sender_id ? (avatars[message.sender_id] ?? null) : null;
  const question = taskQuestionOf(message);
  const shown = question === null ? message : { ...message, content: question };
  return (
    <ChatBubble
      origin={origin}
      name={name}
      avatarUrl={avatarUrl}
      senderId={message.sender_id}
      kin={origin === "assistant" ? kin : message.source === "kin" ? (kins.find((other) => other.id === message.sender_id) ?? null) : null}
      status={message.status}
      time={message.created_at}
      labels={labels}
      className={dimmed}
    >
      <KinMessageHeading message={message} />
      {cameFrom ? <OriginBadge origin={cameFrom} direction={origin === "assistant" ? "delivered" : "received"} className="mb-1" /> : null}
      {notDelivered ? <UndeliveredSign message={message} sign={notDelivered} me={me} /> : null}
      {hasPendingSecrets(message) ? <PendingSecretsText message={message} me={me} kinName={kin.name} /> : shown.content ? <MessageText text={shown.content} breaks={message.role === "user"} /> : null}
      {message.attachments?.length ? <Attachments files={message.attachments} /> : null}
      {origin === "assistant" ? <ToolCards message={message} canAlwaysAllow={me?.role === "admin"} /> : null}
      {message.kin_message_type === "task_input" ? <TaskQuestionHint message={message} kinName={kin.name} /> : null}
      <MessageFooter message={shown} kin={kin} latest={latestId === message.id} />
    </ChatBubble>
  );
}
