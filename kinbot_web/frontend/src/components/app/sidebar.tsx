import { ListChecksIcon, LogOutIcon, PlusIcon, SettingsIcon, UserIcon } from "lucide-react";
import { Dialog as DialogPrimitive } from "radix-ui";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { ThemeToggle } from "@/components/theme-toggle";
import { Avatar } from "@/components/ui/avatar";
import { Button } from "@/components/ui/button";
import { useReturnFocus } from "@/components/ui/dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import type { Kin, User } from "@/lib/types";
import { cn } from "@/lib/utils";

import { KinListItem } from "./kin-list-item";

export interface SidebarTask {
  id: string;
  title: string;
  kinName: string;
  status: string;
  awaitingInput?: boolean;
}

export interface SidebarProps {
  me: Pick<User, "pseudonym" | "first_name" | "avatar_url">;
  kins: Kin[];
  tasks: SidebarTask[];
  /** Finished tasks, newest first (the task page stays reachable after they end). */
  recentTasks?: SidebarTask[];
  selectedKinId?: string | null;
  /** Unread replies by Kin id (lib/unread.ts). */
  unread?: Record<string, number>;
  onSelectKin?: (kinId: string) => void;
  selectedTaskId?: string | null;
  onSelectTask?: (taskId: string) => void;
  onNewKin?: () => void;
  onSignOut?: () => void;
  onOpenAccount?: () => void;
  onOpenSettings?: () => void;
}

function Section({ title, action, children }: { title: string; action?: React.ReactNode; children: React.ReactNode }) {
  return (
    <section className="flex flex-col gap-1">
      <div className="flex items-center justify-between px-2.5 pt-2 pb-1">
        <h2 className="text-xs font-bold tracking-wider text-muted-foreground uppercase">{title}</h2>
        {action}
      </div>
      {children}
    </section>
  );
}

function TaskButton({ task, selected, onSelect, muted = false }: { task: SidebarTask; selected: boolean; onSelect: () => void; muted?: boolean }) {
  return (
    <button
      type="button"
      onClick={onSelect}
      aria-current={selected ? "page" : undefined}
      className={cn("flex w-full items-center gap-2.5 rounded-xl px-2.5 py-2 text-left text-sm transition-colors hover:bg-accent/70 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-ring", selected && "bg-card shadow-soft hover:bg-card")}
    >
      <span className={cn("flex size-7 shrink-0 items-center justify-center rounded-lg", muted ? "bg-muted text-muted-foreground" : "bg-bubble-task text-bubble-task-accent")}>
        <ListChecksIcon className="size-4" aria-hidden />
      </span>
      <span className="min-w-0 flex-1">
        <span className="block truncate font-semibold">{task.title}</span>
        <span className="block truncate text-xs text-muted-foreground">
          {task.kinName} · {task.status}
        </span>
      </span>
      {task.awaitingInput ? <span className="size-2 shrink-0 rounded-full bg-warning" aria-hidden /> : null}
    </button>
  );
}

/** How many replies of a Kin wait to be read, on the corner of its picture. */
function UnreadBadge({ count, kinId }: { count: number; kinId: string }) {
  const { t } = useTranslation();
  if (count <= 0) return null;
  return (
    <span data-unread-kin={kinId} className="pointer-events-none absolute top-0.5 left-8 flex h-5 min-w-5 items-center justify-center rounded-full bg-primary px-1.5 text-[0.7rem] leading-none font-bold text-primary-foreground ring-2 ring-sidebar">
      <span aria-hidden>{count > 99 ? "99+" : count}</span>
      <span className="sr-only">{t("chatflow.unread", { count })}</span>
    </span>
  );
}

/** The left column: Kins, running tasks, and the way to My account and Settings. */
export function Sidebar({ me, kins, tasks, recentTasks = [], selectedKinId, unread = {}, onSelectKin, selectedTaskId, onSelectTask, onNewKin, onSignOut, onOpenAccount, onOpenSettings }: SidebarProps) {
  const { t } = useTranslation();
  return (
    <nav className="flex h-full w-full flex-col gap-2 bg-sidebar p-3" aria-label="KinBot">
      <div className="flex items-center gap-2.5 px-2 py-1.5">
        <img src="/favicon.svg" alt="" className="size-8" />
        <span className="text-lg font-extrabold tracking-tight">{t("app.name")}</span>
        <span className="flex-1" />
        <ThemeToggle />
      </div>
      <div className="flex min-h-0 flex-1 flex-col gap-3 overflow-y-auto">
        <Section
          title={t("sidebar.kins")}
          action={
            <Button variant="ghost" size="icon-sm" onClick={onNewKin} aria-label={t("sidebar.newKin")}>
              <PlusIcon />
            </Button>
          }
        >
          {kins.length === 0 ? <p className="px-2.5 py-2 text-sm text-muted-foreground">{t("sidebar.noKins")}</p> : null}
          <ul className="flex flex-col gap-0.5">
            {kins.map((kin) => (
              <li key={kin.id} className="relative">
                <KinListItem kin={kin} selected={kin.id === selectedKinId} onSelect={() => onSelectKin?.(kin.id)} />
                <UnreadBadge count={unread[kin.id] ?? 0} kinId={kin.id} />
              </li>
            ))}
          </ul>
        </Section>
        <Section title={t("sidebar.tasks")}>
          {tasks.length === 0 ? <p className="px-2.5 py-2 text-sm text-muted-foreground">{t("sidebar.noTasks")}</p> : null}
          <ul className="flex flex-col gap-0.5" aria-label={t("sidebar.tasks")}>
            {tasks.map((task) => (
              <li key={task.id}>
                <TaskButton task={task} selected={task.id === selectedTaskId} onSelect={() => onSelectTask?.(task.id)} />
              </li>
            ))}
          </ul>
        </Section>
        {recentTasks.length > 0 ? (
          <Section title={t("sidebar.recentTasks")}>
            <ul className="flex flex-col gap-0.5" aria-label={t("sidebar.recentTasks")}>
              {recentTasks.map((task) => (
                <li key={task.id}>
                  <TaskButton task={task} selected={task.id === selectedTaskId} onSelect={() => onSelectTask?.(task.id)} muted />
                </li>
              ))}
            </ul>
          </Section>
        ) : null}
      </div>
      <DropdownMenu>
        <DropdownMenuTrigger asChild>
          <button type="button" className="flex items-center gap-2.5 rounded-xl px-2.5 py-2 text-left hover:bg-accent/70">
            <Avatar name={me.pseudonym || me.first_name} src={me.avatar_url} size="sm" />
            <span className="min-w-0 flex-1 truncate text-sm font-semibold">{me.pseudonym || me.first_name}</span>
            <SettingsIcon className="size-4 text-muted-foreground" aria-hidden />
          </button>
        </DropdownMenuTrigger>
        <DropdownMenuContent side="top" align="start" className="w-56">
          <DropdownMenuItem onSelect={onOpenAccount}>
            <UserIcon /> {t("sidebar.account")}
          </DropdownMenuItem>
          {onOpenSettings ? (
            <DropdownMenuItem onSelect={onOpenSettings}>
              <SettingsIcon /> {t("sidebar.settings")}
            </DropdownMenuItem>
          ) : null}
          <DropdownMenuSeparator />
          <DropdownMenuItem onSelect={onSignOut}>
            <LogOutIcon /> {t("sidebar.signOut")}
          </DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>
    </nav>
  );
}

/**
 * The sidebar as a drawer, below the `md` width: a modal dialog sliding from the left. Focus
 * moves into it and stays there, Escape or a tap on the backdrop closes it, and focus goes
 * back to the button that opened it. `label` names it for screen readers.
 */
export function SidebarDrawer({ open, onOpenChange, label, children }: { open: boolean; onOpenChange: (open: boolean) => void; label: string; children: React.ReactNode }) {
  const returnFocus = useReturnFocus();
  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-foreground/25 data-[state=open]:animate-fade-in md:hidden" />
        <DialogPrimitive.Content
          aria-describedby={undefined}
          className="fixed inset-y-0 left-0 z-40 w-72 max-w-[85%] shadow-lifted outline-none data-[state=open]:animate-rise-in md:hidden"
          {...returnFocus}
        >
          <DialogPrimitive.Title className="sr-only">{label}</DialogPrimitive.Title>
          {children}
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}
