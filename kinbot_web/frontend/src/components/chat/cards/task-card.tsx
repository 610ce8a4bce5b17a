/** A task's or a cron run's end in its parent's chat, as a card: who finished what ("Chef's
 * helper finished: leek and potato soup"), a link to the task, the result (or the error)
 * expandable. Never an id: the task is named by its title, the worker by its name. */

import { ChevronRightIcon, CircleAlertIcon, CircleCheckIcon, CircleSlashIcon, ClockIcon, ListChecksIcon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link, useInRouterContext } from "react-router";

import { formatTime, type ChatBubbleLabels } from "@/components/ui/chat-bubble";
import { taskEndWords } from "@/lib/task-end";
import type { Message } from "@/lib/types";
import { cn } from "@/lib/utils";

import { taskEndOf, taskMetaOf, type MessageWithMeta, type TaskEnd } from "./meta";

const ICONS = { task_result: CircleCheckIcon, task_failed: CircleAlertIcon, task_cancelled: CircleSlashIcon } as const;

/** The card's headline in the UI language. */
export function useTaskHeadline(message: MessageWithMeta, end: TaskEnd, kinName: string): string {
  const { t } = useTranslation();
  const meta = taskMetaOf(message);
  if (message.source === "cron") {
    const name = meta.cron_name ?? meta.task_title;
    const key = end === "task_result" ? "cronFinished" : end === "task_failed" ? "cronFailed" : "cronCancelled";
    return t(`cards.task.${key}`, { name });
  }
  const who = meta.spawned_self ? t("cards.task.helper", { name: kinName }) : meta.worker_name || t("cards.task.someone");
  const key = end === "task_result" ? "finished" : end === "task_failed" ? "failed" : "cancelled";
  return t(`cards.task.${key}`, { who, title: meta.task_title });
}

function TaskLink({ href, children }: { href: string; children: React.ReactNode }) {
  const inRouter = useInRouterContext();
  const className = "font-semibold text-foreground underline underline-offset-2";
  return inRouter ? (
    <Link to={href} className={className}>
      {children}
    </Link>
  ) : (
    <a href={href} className={className}>
      {children}
    </a>
  );
}

/** `message`, a task delivery (see taskEndOf), as a card. */
export function TaskCard({ message, kinName, labels, className, renderText = (text) => <p className="whitespace-pre-wrap">{text}</p> }: {
  message: Message;
  kinName: string;
  labels: ChatBubbleLabels;
  className?: string;
  /** How the result or error text is shown (Markdown in the chat). */
  renderText?: (text: string) => React.ReactNode;
}) {
  const { t } = useTranslation();
  const end = taskEndOf(message) ?? "task_result";
  const meta = taskMetaOf(message);
  const headline = useTaskHeadline(message, end, kinName);
  const cron = message.source === "cron";
  const Icon = cron ? ClockIcon : ListChecksIcon;
  const StateIcon = ICONS[end];
  // A failure is worded from its code as on the task's page; one stored before codes shows
  // the sentence it has.
  const worded = end !== "task_result" && meta.error_code ? taskEndWords(t, meta) : null;
  const body = end === "task_result" ? meta.result : meta.error;
  return (
    <article
      data-origin={cron ? "cron" : "task"}
      data-task-card={end}
      aria-label={headline}
      className={cn("flex items-start gap-2.5 animate-rise-in", className)}
    >
      <span className={cn("flex size-9 shrink-0 items-center justify-center rounded-xl", cron ? "bg-bubble-cron text-bubble-cron-accent" : "bg-bubble-task text-bubble-task-accent")} aria-hidden>
        <Icon className="size-4.5" />
      </span>
      <div className={cn("min-w-0 max-w-[min(44rem,85%)] flex-1 rounded-2xl rounded-tl-md border-l-4 px-4 py-2.5 text-sm", cron ? "border-bubble-cron-accent bg-bubble-cron" : "border-bubble-task-accent bg-bubble-task")}>
        <p className="flex items-start gap-1.5 font-semibold">
          <StateIcon className={cn("mt-0.5 size-4 shrink-0", end === "task_failed" ? "text-destructive" : end === "task_result" ? "text-success" : "text-muted-foreground")} aria-hidden />
          <span className="min-w-0 break-words">{headline}</span>
        </p>
        {body || worded ? (
          <details className="group/result mt-1.5">
            <summary className="flex w-fit cursor-pointer list-none items-center gap-1 rounded text-xs font-semibold text-muted-foreground focus-visible:outline-2 focus-visible:outline-ring [&::-webkit-details-marker]:hidden">
              <ChevronRightIcon className="size-3.5 transition-transform group-open/result:rotate-90 motion-reduce:transition-none" aria-hidden />
              {end === "task_result" ? t("cards.task.showResult") : t("cards.task.showError")}
            </summary>
            <div className="mt-1.5 rounded-xl bg-background/60 px-3 py-2" data-task-body>
              {worded ? (
                <>
                  <p data-task-end-reason>{worded.reason}</p>
                  {worded.detail ? <p className="mt-1 text-xs opacity-80">{worded.detail}</p> : null}
                </>
              ) : (
                renderText(body ?? "")
              )}
            </div>
          </details>
        ) : null}
        <p className="mt-1.5 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-muted-foreground">
          {message.task_id ? <TaskLink href={`/tasks/${message.task_id}`}>{t("cards.task.open")}</TaskLink> : null}
          <time dateTime={new Date(message.created_at * 1000).toISOString()}>{formatTime(message.created_at, labels.clock)}</time>
        </p>
      </div>
    </article>
  );
}
