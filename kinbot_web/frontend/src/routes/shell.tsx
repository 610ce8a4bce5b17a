import * as React from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useParams } from "react-router";

import { BudgetWarnings } from "@/components/app/budget-warnings";
import { CreateKinDialog } from "@/components/app/create-kin-dialog";
import { KinUnavailable } from "@/components/app/kin-unavailable";
import { NoKins } from "@/components/app/no-kins";
import { Sidebar, SidebarDrawer, type SidebarTask } from "@/components/app/sidebar";
import { ChatPanel } from "@/components/chat/chat-panel";
import { TaskPanel } from "@/components/chat/task-panel";
import { setLanguage } from "@/i18n";
import { api, ApiError } from "@/lib/api";
import { EventStream } from "@/lib/events";
import { type Change, LiveReads } from "@/lib/live-reads";
import { disablePush } from "@/lib/push";
import { splitTasks } from "@/lib/tasks";
import { titleWith, totalUnread, useUnread } from "@/lib/unread";
import type { Kin, Task, User } from "@/lib/types";

/** The signed-in app: sidebar (Kins, tasks, account) and the selected Kin's chat. */
export default function AppShell() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { kinId, taskId } = useParams();
  const [me, setMe] = React.useState<User | null>(null);
  const [kins, setKins] = React.useState<Kin[]>([]);
  const [tasks, setTasks] = React.useState<Task[]>([]);
  const [recentTasks, setRecentTasks] = React.useState<Task[]>([]);
  const [loaded, setLoaded] = React.useState(false);
  const [creating, setCreating] = React.useState(false);
  const [sidebarOpen, setSidebarOpen] = React.useState(false);
  const stream = React.useMemo(() => new EventStream(), []);

  /** What live events change in the Kins' list, kept for the reads under way. */
  const kinReads = React.useMemo(() => new LiveReads<Kin[]>(), []);

  /** Fetch the Kins and tasks; `andThen` runs with their state change, in the same render. */
  const loadLists = React.useCallback(
    async (andThen?: () => void) => {
      const read = kinReads.read();
      try {
        const [kinList, taskList, latest] = await Promise.all([
          api<{ kins: Kin[] }>("/api/kins"),
          api<{ tasks: Task[] }>("/api/tasks?status=active"),
          api<{ tasks: Task[] }>("/api/tasks?limit=20"),
        ]);
        const shown = read.settle(kinList.kins);
        const lists = splitTasks(taskList.tasks, latest.tasks);
        // A transition: React renders in slices, so a phone stays responsive while it does.
        React.startTransition(() => {
          // Unless a read begun later is on screen already: it is newer.
          if (shown) {
            setKins(shown);
            setTasks(lists.running);
            setRecentTasks(lists.recent);
          }
          andThen?.();
        });
      } finally {
        read.end();
      }
    },
    [kinReads],
  );

  React.useEffect(() => {
    let cancelled = false;
    (async () => {
      // Asked first: whether anyone is signed in (asking /api/me regardless would log a 401
      // on every signed-out visit), and an administrator's unfinished onboarding.
      const { step, signed_in } = await api<{ step: string; signed_in: boolean }>("/api/onboarding");
      if (cancelled) return;
      if (!signed_in) {
        navigate(step === "identity" ? "/onboarding" : "/signin", { replace: true });
        return;
      }
      try {
        const { user } = await api<{ user: User }>("/api/me");
        if (cancelled) return;
        setLanguage(user.language);
        setMe(user);
        if (user.role === "admin") {
          if (step === "providers" || step === "search_providers") {
            navigate("/onboarding", { replace: true });
            return;
          }
        }
        // Listen first, then load: what changes in between arrives as an event. The server
        // sends events from the moment the stream opens, not from when it was asked for.
        stream.connect();
        await stream.whenOpen();
        if (cancelled) return;
        await loadLists(() => !cancelled && setLoaded(true));
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 401) throw error;
        if (cancelled) return; // the session ended in between
        navigate("/signin", { replace: true });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [loadLists, navigate, stream]);

  React.useEffect(() => {
    const update = (change: Change<Kin[]>) => setKins(kinReads.change(change));
    const patch = (id: string, change: Partial<Kin>) => update((list) => list.map((kin) => (kin.id === id ? { ...kin, ...change } : kin)));
    const off = [
      stream.on("kin.queue", ({ kin_id, queue_length }) => patch(kin_id, { queue_length })),
      stream.on("kin.state", ({ kin_id, state, error, error_code }) => patch(kin_id, { state, last_error: error, last_error_code: error_code ?? null })),
      stream.on("kin.created", ({ kin }) => update((list) => (list.some((other) => other.id === kin.id) ? list : [...list, kin]))),
      stream.on("kin.updated", ({ kin }) => patch(kin.id, kin)),
      stream.on("kin.deleted", ({ kin_id }) => update((list) => list.filter((kin) => kin.id !== kin_id))),
      stream.on("task.updated", () => void loadLists()),
      stream.onResync(() => void loadLists()),
    ];
    return () => {
      off.forEach((unsubscribe) => unsubscribe());
      stream.close();
    };
  }, [stream, loadLists, kinReads]);

  const selected = kins.find((kin) => kin.id === kinId) ?? null;
  // The chat on screen (not a task's page, nor a Kin's settings) is the one being read.
  const unread = useUnread(me?.id ?? null, stream, !taskId && selected ? selected.id : null);
  const unreadCounts = React.useMemo(() => Object.fromEntries(kins.map((kin) => [kin.id, unread[kin.id]?.length ?? 0])), [kins, unread]);
  const unreadTotal = totalUnread(unread, kins.map((kin) => kin.id));
  // The browser's tab names the Kin whose chat is open, after the count of unread messages.
  const pageTitle = selected && !taskId ? `${selected.name} · ${t("app.name")}` : t("app.name");
  React.useEffect(() => {
    document.title = titleWith(unreadTotal, pageTitle);
  }, [unreadTotal, pageTitle]);
  React.useEffect(() => () => void (document.title = t("app.name")), [t]);
  React.useEffect(() => {
    if (me && !kinId && !taskId && kins.length > 0) navigate(`/kins/${kins[0].id}`, { replace: true });
  }, [me, kinId, taskId, kins, navigate]);

  // The first visit after onboarding: offer to create the first Kin at once.
  React.useEffect(() => {
    if (loaded && kins.length === 0) setCreating(true);
    // Only when the lists arrive, not after each later change of the list.
  }, [loaded]);

  if (!me) return null;
  const firstKin = loaded && kins.length === 0;

  const kinNames = new Map(kins.map((kin) => [kin.id, kin.name]));
  const toSidebar = (task: Task): SidebarTask => ({
    id: task.id,
    title: task.title,
    kinName: kinNames.get(task.kin_id) ?? "",
    status: t(`chat.taskStatus.${task.status}`),
    awaitingInput: task.awaiting_input,
  });
  const sidebar = (
    <Sidebar
      me={me}
      kins={kins}
      tasks={tasks.map(toSidebar)}
      recentTasks={recentTasks.map(toSidebar)}
      selectedKinId={kinId}
      unread={unreadCounts}
      onSelectKin={(id) => {
        setSidebarOpen(false);
        navigate(`/kins/${id}`);
      }}
      selectedTaskId={taskId}
      onSelectTask={(id) => {
        setSidebarOpen(false);
        navigate(`/tasks/${id}`);
      }}
      onNewKin={() => {
        setSidebarOpen(false);
        setCreating(true);
      }}
      onOpenAccount={() => navigate("/account")}
      onOpenSettings={me.role === "admin" ? () => navigate("/settings") : undefined}
      onSignOut={() => {
        // Signed out, this browser stops receiving this person's notifications (a shared tablet).
        void disablePush()
          .catch(() => undefined)
          .then(() => api("/api/auth/logout", { method: "POST" }))
          .finally(() => {
            stream.close();
            navigate("/signin", { replace: true });
          });
      }}
    />
  );
  return (
    <div className="flex h-dvh overflow-hidden">
      <BudgetWarnings stream={stream} />
      <aside className="hidden w-72 shrink-0 border-r border-border/70 md:block">{sidebar}</aside>
      <SidebarDrawer open={sidebarOpen} onOpenChange={setSidebarOpen} label={t("sidebar.navigation")}>
        {sidebar}
      </SidebarDrawer>
      {taskId ? (
        <TaskPanel key={taskId} taskId={taskId} me={me} kins={loaded ? kins : null} stream={stream} onOpenSidebar={() => setSidebarOpen(true)} />
      ) : selected ? (
        <ChatPanel key={selected.id} kin={selected} me={me} kins={kins} stream={stream} onOpenSidebar={() => setSidebarOpen(true)} />
      ) : loaded && kins.length === 0 ? (
        <NoKins onCreate={() => setCreating(true)} onOpenSidebar={() => setSidebarOpen(true)} />
      ) : loaded && kinId ? (
        <KinUnavailable firstKin={kins[0] ?? null} onOpenSidebar={() => setSidebarOpen(true)} />
      ) : (
        <main className="flex flex-1 items-center justify-center text-muted-foreground">{loaded ? t("chat.select") : null}</main>
      )}
      <CreateKinDialog
        open={creating}
        onOpenChange={setCreating}
        title={firstKin ? t("onboarding.firstKin.title") : undefined}
        description={firstKin ? t("onboarding.firstKin.subtitle") : undefined}
        onCreated={(kin) => {
          setKins((list) => (list.some((other) => other.id === kin.id) ? list : [...list, kin]));
          navigate(`/kins/${kin.id}`);
        }}
      />
    </div>
  );
}
