import { ChevronRightIcon, LoaderCircleIcon, MessageCircleQuestionIcon, WrenchIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link, useInRouterContext } from "react-router";

import type { KinLook } from "@/components/ui/avatar";
import { ChatBubble, type ChatBubbleLabels } from "@/components/ui/chat-bubble";
import { originOf, type ChatState, type ToolActivity } from "@/lib/chat";
import type { Kin, Message, User } from "@/lib/types";

import { hasPendingSecrets, PendingSecretsText } from "./pending-secrets";

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
export const MessageText = React.memo(function MessageText({ text }: { text: string }) {
  const [Rich, setRich] = React.useState<MarkdownComponent | null>(() => Markdown);
  React.useEffect(() => {
    if (Rich) return;
    let mounted = true;
    void markdownLoaded.then(() => mounted && React.startTransition(() => setRich(() => Markdown)));
    return () => {
      mounted = false;
    };
  }, [Rich]);
  return Rich ? <Rich text={text} /> : <p className="whitespace-pre-wrap">{text}</p>;
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

/** Tool calls of an assistant message, one line each, expandable to their arguments. */
export function ToolCalls({ message }: { message: Message }) {
  const { t } = useTranslation();
  const calls = message.tool_calls ?? [];
  if (calls.length === 0) return null;
  return (
    <details className="group/tools mt-1 rounded-xl bg-muted/70 px-3 py-1.5 text-xs text-muted-foreground">
      <summary className="flex cursor-pointer list-none items-center gap-1.5 font-semibold">
        <ChevronRightIcon className="size-3.5 transition-transform group-open/tools:rotate-90" aria-hidden />
        <WrenchIcon className="size-3.5" aria-hidden />
        {t("chat.toolCalls", { count: calls.length })}: {calls.map((call) => call.name).join(", ")}
      </summary>
      <ul className="mt-1.5 space-y-1">
        {calls.map((call) => (
          <li key={call.id}>
            <code className="font-semibold">{call.name}</code>
            {call.arguments !== undefined ? <pre className="mt-0.5 overflow-x-auto whitespace-pre-wrap">{JSON.stringify(call.arguments, null, 2)}</pre> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}

/** What running turns have streamed and are running but not stored yet, in a chat. */
export function LiveTurns({ chat, name, avatarUrl, kin }: { chat: Pick<ChatState, "streaming" | "tools">; name: string; avatarUrl?: string | null; kin?: KinLook | null }) {
  const labels = useBubbleLabels();
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
        <RunningTools key={`tools-${turn}`} tools={tools} />
      ))}
    </>
  );
}

/** The tool calls a turn is running now, one compact line each (stored calls show instead
 * once they end). */
function RunningTools({ tools }: { tools: ToolActivity[] }) {
  const { t } = useTranslation();
  const running = tools.filter((tool) => tool.status === "running");
  if (running.length === 0) return null;
  return (
    <ul className="flex flex-col gap-1 pl-12" aria-label={t("chat.toolCalls", { count: running.length })}>
      {running.map((tool) => (
        <li key={tool.id} className="flex w-fit items-center gap-1.5 rounded-xl bg-muted/70 px-3 py-1.5 text-xs font-semibold text-muted-foreground" data-running-tool={tool.name}>
          <LoaderCircleIcon className="size-3.5 animate-spin motion-reduce:animate-none" aria-hidden />
          {t("chat.toolRunning", { name: tool.name })}
        </li>
      ))}
    </ul>
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

/** One stored message as a chat bubble; tool results are folded into their call's line. */
export function MessageView({ message, me, kin, avatars = {} }: MessageViewProps) {
  const labels = useBubbleLabels();
  const origin = originOf(message, me?.id ?? null);
  if (origin === "tool") return null;
  if (origin === "assistant" && !message.content && message.tool_calls?.length) {
    return (
      <div className="pl-12">
        <ToolCalls message={message} />
      </div>
    );
  }
  const name = origin === "assistant" ? kin.name : (message.sender_name ?? labels.system);
  const avatarUrl = origin === "assistant" ? kin.avatar_url : message.sender_id ? (avatars[message.sender_id] ?? null) : null;
  return (
    <ChatBubble origin={origin} name={name} avatarUrl={avatarUrl} senderId={message.sender_id} kin={origin === "assistant" ? kin : null} status={message.status} time={message.created_at} labels={labels}>
      {hasPendingSecrets(message) ? <PendingSecretsText message={message} me={me} kinName={kin.name} /> : message.content ? <MessageText text={message.content} /> : null}
      {message.attachments?.length ? (
        <ul className="mt-1 flex flex-wrap gap-2">
          {message.attachments.map((file) => (
            <li key={file.id}>
              <a href={file.url} className="text-xs font-semibold underline" target="_blank" rel="noopener noreferrer">
                {file.filename}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
      {origin === "assistant" ? <ToolCalls message={message} /> : null}
      {message.kin_message_type === "task_input" ? <TaskQuestionHint message={message} kinName={kin.name} /> : null}
    </ChatBubble>
  );
}
