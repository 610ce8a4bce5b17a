import { ArchiveIcon, ArchiveRestoreIcon, PinIcon, PinOffIcon, SearchIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatRelative } from "@/lib/format";
import type { Kin } from "@/lib/types";

/** How often a memory went into the Kin's prompt and was found by its recall tool, and when last. */
export interface MemoryUsage {
  injected_count: number;
  recalled_count: number;
  last_injected_at: number | null;
  last_recalled_at: number | null;
}

export interface KinMemory {
  id: number;
  content: string;
  category: string;
  subject: string | null;
  created_at: number;
  pinned: boolean;
  archived_at: number | null;
  usage: MemoryUsage;
}

export type MemoryFilter = "all" | "never-used" | "pinned" | "archived";

/** Whether a memory was ever given to the Kin or looked up by it. */
export function neverUsed(memory: KinMemory): boolean {
  return memory.usage.injected_count === 0 && memory.usage.recalled_count === 0;
}

/** The memories `filter` shows, in the order given. */
export function filtered(memories: KinMemory[], filter: MemoryFilter): KinMemory[] {
  if (filter === "never-used") return memories.filter(neverUsed);
  if (filter === "pinned") return memories.filter((memory) => memory.pinned);
  if (filter === "archived") return memories.filter((memory) => memory.archived_at !== null);
  return memories;
}

function lastUsed(usage: MemoryUsage): number | null {
  const dates = [usage.last_injected_at, usage.last_recalled_at].filter((when): when is number => when !== null);
  return dates.length ? Math.max(...dates) : null;
}

function UsageLine({ memory }: { memory: KinMemory }) {
  const { t, i18n } = useTranslation();
  if (neverUsed(memory)) return <span data-usage="never">{t("memoryUse.neverUsed")}</span>;
  const { usage } = memory;
  const when = lastUsed(usage);
  const parts = [t("memoryUse.injected", { count: usage.injected_count })];
  if (usage.recalled_count) parts.push(t("memoryUse.recalled", { count: usage.recalled_count }));
  if (when !== null) parts.push(t("memoryUse.lastUsed", { when: formatRelative(when, i18n.language) }));
  return <span data-usage={`${usage.injected_count}/${usage.recalled_count}`}>{parts.join(" · ")}</span>;
}

/** A Kin's memories: search, a filter (never used, pinned, archived), how often each was used, and pin, archive, restore, delete. */
export function KinMemories({ kin }: { kin: Kin }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const fail = React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }), [toast, t]);
  const [query, setQuery] = React.useState("");
  const [filter, setFilter] = React.useState<MemoryFilter>("all");
  const [memories, setMemories] = React.useState<KinMemory[] | null>(null);
  const [searched, setSearched] = React.useState(""); // the search the list answers, if any
  const [deleting, setDeleting] = React.useState<KinMemory | null>(null);
  const search = React.useRef<HTMLInputElement>(null);
  // Only the latest search is shown: an earlier one may answer after it.
  const searches = React.useRef(0);
  const load = React.useCallback(
    (q: string) => {
      const search = ++searches.current;
      const suffix = q.trim() ? `?q=${encodeURIComponent(q.trim())}` : "";
      api<{ memories: KinMemory[] }>(`/api/kins/${kin.id}/memories${suffix}`)
        .then(({ memories: found }) => {
          if (search !== searches.current) return;
          setMemories(found);
          setSearched(q.trim());
        })
        .catch(fail);
    },
    [kin.id, fail],
  );
  React.useEffect(() => load(""), [load]);

  async function remove(id: number) {
    try {
      await api(`/api/kins/${kin.id}/memories/${id}`, { method: "DELETE" });
      setMemories((list) => list?.filter((memory) => memory.id !== id) ?? null);
    } catch (error) {
      fail(error);
    }
  }

  async function change(id: number, marks: { pinned?: boolean; archived?: boolean }) {
    try {
      const { memory: changed } = await api<{ memory: KinMemory }>(`/api/kins/${kin.id}/memories/${id}`, { method: "PATCH", body: marks });
      setMemories((list) => list?.map((memory) => (memory.id === id ? changed : memory)) ?? null);
    } catch (error) {
      fail(error);
    }
  }

  const shown = memories ? filtered(memories, filter) : null;
  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-col gap-2 sm:flex-row">
        <form
          role="search"
          className="flex flex-1 gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            load(query);
          }}
        >
          <Input ref={search} aria-label={t("kinSettings.searchMemories")} placeholder={t("kinSettings.searchMemories")} value={query} onChange={(event) => setQuery(event.target.value)} />
          <Button type="submit" variant="outline" size="icon" aria-label={t("common.search")}>
            <SearchIcon />
          </Button>
        </form>
        <NativeSelect aria-label={t("memoryUse.filter")} value={filter} onChange={(event) => setFilter(event.target.value as MemoryFilter)} className="sm:w-48">
          <option value="all">{t("memoryUse.filterAll")}</option>
          <option value="never-used">{t("memoryUse.filterNeverUsed")}</option>
          <option value="pinned">{t("memoryUse.filterPinned")}</option>
          <option value="archived">{t("memoryUse.filterArchived")}</option>
        </NativeSelect>
      </div>
      {memories?.length === 0 ? <p className="text-sm text-muted-foreground">{searched ? t("memoryUse.noMatch", { query: searched }) : t("kinSettings.noMemories")}</p> : null}
      {memories?.length && shown?.length === 0 ? <p className="text-sm text-muted-foreground">{t("memoryUse.noneInFilter")}</p> : null}
      {filter === "pinned" && shown?.length ? <p className="text-xs text-muted-foreground">{t("memoryUse.pinnedHint")}</p> : null}
      {filter === "archived" && shown?.length ? <p className="text-xs text-muted-foreground">{t("memoryUse.archivedHint")}</p> : null}
      <ul className="flex flex-col gap-2">
        {shown?.map((memory) => {
          const archived = memory.archived_at !== null;
          return (
            <li key={memory.id} className={`flex items-start gap-2 rounded-xl border border-border/70 bg-card px-4 py-3 ${archived ? "opacity-70" : ""}`} data-memory={memory.id} data-pinned={memory.pinned} data-archived={archived}>
              <div className="min-w-0 flex-1">
                <p className="text-sm break-words">{memory.content}</p>
                <p className="mt-1 flex flex-wrap gap-1.5">
                  {memory.pinned ? (
                    <Badge variant="kin">
                      <PinIcon className="size-3" aria-hidden /> {t("memoryUse.pinned")}
                    </Badge>
                  ) : null}
                  {archived ? <Badge variant="warning">{t("memoryUse.archived")}</Badge> : null}
                  <Badge variant="secondary">{t(`memoryUse.category.${memory.category}`, { defaultValue: memory.category })}</Badge>
                  {memory.subject ? <Badge variant="outline">{memory.subject}</Badge> : null}
                </p>
                <p className="mt-1 text-xs text-muted-foreground">
                  <UsageLine memory={memory} />
                </p>
              </div>
              <div className="flex shrink-0 flex-wrap justify-end gap-1">
                {archived ? null : (
                  <Button variant="ghost" size="icon-sm" aria-label={t(memory.pinned ? "memoryUse.unpin" : "memoryUse.pin")} aria-pressed={memory.pinned} onClick={() => void change(memory.id, { pinned: !memory.pinned })}>
                    {memory.pinned ? <PinOffIcon /> : <PinIcon />}
                  </Button>
                )}
                <Button variant="ghost" size="icon-sm" aria-label={t(archived ? "memoryUse.restore" : "memoryUse.archive")} onClick={() => void change(memory.id, { archived: !archived })}>
                  {archived ? <ArchiveRestoreIcon /> : <ArchiveIcon />}
                </Button>
                <Button variant="ghost" size="icon-sm" aria-label={t("kinSettings.deleteMemory")} onClick={() => setDeleting(memory)}>
                  <Trash2Icon />
                </Button>
              </div>
            </li>
          );
        })}
      </ul>
      <ConfirmDelete
        target={deleting}
        title={t("memoryUse.deleteTitle")}
        description={deleting ? t("memoryUse.deleteHint", { memory: deleting.content, name: kin.name }) : ""}
        focusAfterDelete={search}
        onClose={() => setDeleting(null)}
        onConfirm={(memory) => void remove(memory.id)}
      />
    </div>
  );
}
