import { ListChecksIcon, MenuIcon, MessageCircleQuestionIcon, XCircleIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { KinUnavailable } from "@/components/app/kin-unavailable";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ChatBubble } from "@/components/ui/chat-bubble";
import { useToast } from "@/components/ui/toast";
import { ApiError, api } from "@/lib/api";
import { formatDateTime } from "@/lib/format";
import { errorText } from "@/lib/errors";
import { chatReducer, emptyChat, type ChatAction, type Draft } from "@/lib/chat";
import { taskEndWords } from "@/lib/task-end";
import { isActive, pendingQuestion } from "@/lib/tasks";
import type { EventStream } from "@/lib/events";
import { LiveReads } from "@/lib/live-reads";
import type { Kin, Message, Task, User } from "@/lib/types";

import { LiveTurns, MessageText, MessageView, useBubbleLabels } from "./message-view";

/** Most live events kept while the task is read (a bound, should reading it fail). */
const MAX_EARLY_EVENTS = 5000;

/** A task: its state, the Kin it reports to, the question it waits on, and its own session
 * (its sub-Kin's work), live while it runs; it can be cancelled. `kins`: the sidebar's Kins,
 * `null` until they are loaded (the task's replies are drawn from its Kin, so the page waits
 * for them rather than draw a stand-in first). */
export function TaskPanel({ taskId, me, kins, stream, onOpenSidebar }: { taskId: string; me: User; kins: Kin[] | null; stream: EventStream; onOpenSidebar?: () => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const labels = useBubbleLabels();
  const [task, setTask] = React.useState<Task | null>(null);
  /** The task is not there for this person: deleted, or its Kin not shared with them. */
  const [missing, setMissing] = React.useState(false);
  const [chat, dispatch] = React.useReducer(chatReducer, emptyChat);

  // The session's live events are listened to before the task is read, and those that come
  // before its answer (when the session is not known yet) are kept and applied after it: a
  // reply streaming while the page opens then misses no piece of its text.
  const sessionRef = React.useRef<string | null>(null);
  const heading = React.useRef<HTMLHeadingElement>(null);
  const early = React.useRef<{ kinId: string; action: ChatAction }[]>([]);
  const route = React.useCallback((kinId: string, action: ChatAction) => {
    if (sessionRef.current === null) {
      if (early.current.length < MAX_EARLY_EVENTS) early.current.push({ kinId, action });
    } else if (kinId === sessionRef.current) dispatch(action);
  }, []);

  // What `task.updated` says while the task is read is replayed on the answer.
  const taskReads = React.useMemo(() => new LiveReads<Task | null>(), []);
  const load = React.useCallback(async () => {
    const read = taskReads.read();
    try {
      // Listened to first (an event meanwhile is then not missed), as the sidebar does.
      await stream.whenOpen();
      const data = await api<{ task: Task; messages: Message[]; draft: Draft | null }>(`/api/tasks/${taskId}?limit=200`);
      const shown = read.settle(data.task);
      if (shown === null) return; // a read begun later is on screen: it is newer
      setTask(shown);
      sessionRef.current = data.task.session_kin_id;
      dispatch({ type: "page", messages: data.messages, nextBefore: null, draft: data.draft });
      for (const { kinId, action } of early.current.splice(0)) if (kinId === data.task.session_kin_id) dispatch(action);
    } finally {
      read.end();
    }
  }, [taskId, stream, taskReads]);

  React.useEffect(() => {
    sessionRef.current = null;
    early.current = [];
    const off = [
      stream.on("message", ({ message }) => route(message.kin_id, { type: "message", message })),
      stream.on("message.status", (data) => route(data.kin_id, { type: "status", data })),
      stream.on("kin.delta", (data) => route(data.kin_id, { type: "delta", data })),
      stream.on("kin.tool", (data) => route(data.kin_id, { type: "tool", data })),
      stream.on("task.updated", ({ task: updated }) => updated.id === taskId && setTask(taskReads.change(() => updated as unknown as Task))),
      // Events lost: what the session holds is read again, and what streams meanwhile kept.
      stream.onResync(() => {
        dispatch({ type: "reset" });
        void load();
      }),
    ];
    void load().catch((error: Error) => {
      if (error instanceof ApiError && error.status === 404) setMissing(true);
      else toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
    });
    return () => off.forEach((unsubscribe) => unsubscribe());
  }, [stream, taskId, load, route, toast, t, taskReads]);

  if (missing) return <KinUnavailable about="task" firstKin={kins?.[0] ?? null} onOpenSidebar={onOpenSidebar} />;
  if (!task || !kins) return <main className="flex-1" />;
  const parent = kins.find((kin) => kin.id === task.kin_id);
  // Results go to parent_kin_id: a Kin of the sidebar, or (for a sub-task) another task's session.
  const reportsTo = kins.find((kin) => kin.id === task.parent_kin_id);
  const question = pendingQuestion(task, chat.messages);
  // A failed turn that ended the task is told once, by the task's end below.
  const last = chat.messages.at(-1);
  const endedOnIt = Boolean(last?.is_error && (task.error || task.error_code));
  const messages = endedOnIt ? chat.messages.slice(0, -1) : chat.messages;
  // The task's replies are drawn from the Kin doing it (its role picks the picture's icon).
  const speaker = { id: task.session_kin_id, name: task.title, avatar_url: null, role: parent?.role, expertise: parent?.expertise };
  async function cancel() {
    try {
      const { task: updated } = await api<{ task: Task }>(`/api/tasks/${taskId}/cancel`, { method: "POST" });
      setTask(updated);
      heading.current?.focus(); // the button goes with the running state: the keyboard stays here
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
    }
  }
  return (
    <main className="flex h-full min-w-0 flex-1 flex-col" aria-label={task.title}>
      <header className="flex items-center gap-3 border-b border-border/70 px-4 py-3">
        <Button variant="ghost" size="icon" className="md:hidden" onClick={onOpenSidebar} aria-label={t("sidebar.openMenu")}>
          <MenuIcon />
        </Button>
        <span className="flex size-9 shrink-0 items-center justify-center rounded-xl bg-bubble-task text-bubble-task-accent">
          <ListChecksIcon className="size-4.5" aria-hidden />
        </span>
        <div className="min-w-0 flex-1">
          <h1 ref={heading} tabIndex={-1} className="truncate font-bold focus-visible:outline-none">
            {task.title}
          </h1>
          <p className="truncate text-xs text-muted-foreground">{t("chat.taskOf", { name: parent?.name ?? "" })}</p>
        </div>
        <Badge variant={task.status === "failed" ? "destructive" : task.status === "completed" ? "success" : "task"}>{t(`chat.taskStatus.${task.status}`)}</Badge>
        {isActive(task) ? (
          <Button variant="outline" size="sm" onClick={() => void cancel()} aria-label={t("chat.cancelTask")}>
            <XCircleIcon /> <span className="hidden sm:inline">{t("chat.cancelTask")}</span>
          </Button>
        ) : null}
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto" aria-live="polite">
        <div className="mx-auto flex max-w-3xl flex-col gap-4 px-4 py-6">
          <p className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted-foreground">
            <span>{t(`chat.taskMode.${task.mode}`)}</span>
            {reportsTo ? (
              <Link to={`/kins/${reportsTo.id}`} className="font-semibold underline underline-offset-2">
                {t("chat.reportsTo", { name: reportsTo.name })}
              </Link>
            ) : null}
            <time dateTime={new Date(task.created_at * 1000).toISOString()}>{formatDateTime(task.created_at)}</time>
          </p>
          <p className="rounded-2xl bg-muted px-4 py-3 text-sm whitespace-pre-wrap text-muted-foreground wrap-anywhere">{task.description}</p>
          {task.awaiting_input ? (
            <section role="status" aria-label={t("chat.questionWaiting")} className="flex gap-3 rounded-2xl border border-warning/50 bg-warning/15 px-4 py-3 text-sm" data-question-waiting>
              <MessageCircleQuestionIcon className="mt-0.5 size-4.5 shrink-0" aria-hidden />
              <div className="min-w-0 flex-1">
                <p className="font-semibold">{t("chat.questionWaiting")}</p>
                {question ? <p className="mt-1 whitespace-pre-wrap">{question}</p> : null}
                {reportsTo ? (
                  <Link to={`/kins/${reportsTo.id}`} className="mt-1.5 inline-block text-xs font-semibold underline underline-offset-2">
                    {t("chat.answerIn", { name: reportsTo.name })}
                  </Link>
                ) : null}
              </div>
            </section>
          ) : null}
          <h2 className="text-xs font-bold tracking-wider text-muted-foreground uppercase">{t("chat.session")}</h2>
          {messages.length === 0 && Object.keys(chat.streaming).length === 0 ? <p className="text-sm text-muted-foreground">{t("chat.noSession")}</p> : null}
          {messages.map((message) => (
            <MessageView key={message.id} message={message} me={me} kin={speaker} readOnly />
          ))}
          <LiveTurns chat={chat} name={task.title} kin={speaker} />
          {task.result ? (
            <ChatBubble origin="task" name={task.title} labels={labels}>
              <MessageText text={task.result} />
            </ChatBubble>
          ) : null}
          {task.error || task.error_code ? (
            <ChatBubble origin="error" name={task.title} labels={labels}>
              <TaskEnd task={task} />
            </ChatBubble>
          ) : null}
        </div>
      </div>
    </main>
  );
}

/** Why a task failed or was cancelled, in the reader's language (`taskErrors`), and the
 * provider's or the sub-Kin's own words when there are some. A task that ended before codes
 * existed has none: its stored reason, whoever's words they were, shows as plain details. */
function TaskEnd({ task }: { task: Task }) {
  const { t } = useTranslation();
  const { reason, detail } = taskEndWords(t, task);
  return (
    <>
      <p data-testid="task-end-reason">{reason}</p>
      {detail ? (
        <p className="mt-1 text-xs opacity-80" data-testid="task-end-detail">
          {detail}
        </p>
      ) : null}
    </>
  );
}
