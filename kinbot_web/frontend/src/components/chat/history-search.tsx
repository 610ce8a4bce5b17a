import { LoaderCircleIcon, SearchIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { api } from "@/lib/api";
import type { Kin } from "@/lib/types";

/** One message found (GET /api/kins/{id}/history/search). */
export interface HistoryResult {
  message_id: number;
  role: "user" | "assistant";
  sender_name: string | null;
  snippet: string;
  created_at: number;
}

type Search = { state: "idle" } | { state: "searching"; query: string } | { state: "done"; query: string; results: HistoryResult[] } | { state: "failed"; query: string; error: string };

/** `text` with the words of `query` marked. */
export function Highlighted({ text, query }: { text: string; query: string }) {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1);
  if (!words.length) return <>{text}</>;
  const pattern = new RegExp(`(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`, "giu");
  return (
    <>
      {text.split(pattern).map((part, index) =>
        index % 2 === 1 ? (
          <mark key={index} className="rounded bg-warning/40 px-0.5 text-foreground">
            {part}
          </mark>
        ) : (
          part
        ),
      )}
    </>
  );
}

/**
 * Search a Kin's whole history (the hybrid search its `search_history` tool uses) and pick a
 * message to read in context: `onChoose` gets its id once the dialog is closed.
 */
export function HistorySearch({ kin, open, onOpenChange, onChoose }: { kin: Pick<Kin, "id" | "name">; open: boolean; onOpenChange: (open: boolean) => void; onChoose: (messageId: number) => void }) {
  const { t, i18n } = useTranslation();
  const [query, setQuery] = React.useState("");
  const [search, setSearch] = React.useState<Search>({ state: "idle" });
  const chosen = React.useRef<number | null>(null);
  const dates = React.useMemo(() => new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }), [i18n.language]);

  const run = React.useCallback(
    async (text: string) => {
      const wanted = text.trim();
      if (!wanted) return setSearch({ state: "idle" });
      setSearch({ state: "searching", query: wanted });
      try {
        const { results } = await api<{ results: HistoryResult[] }>(`/api/kins/${kin.id}/history/search?q=${encodeURIComponent(wanted)}&limit=30`);
        // Only the answer to what the box says now (an earlier, slower search may end later).
        setSearch((current) => (current.state === "searching" && current.query === wanted ? { state: "done", query: wanted, results } : current));
      } catch (error) {
        setSearch((current) => (current.state === "searching" && current.query === wanted ? { state: "failed", query: wanted, error: (error as Error).message } : current));
      }
    },
    [kin.id],
  );

  // Searches as one types, once typing pauses.
  React.useEffect(() => {
    if (!open) return;
    const timer = setTimeout(() => void run(query), 300);
    return () => clearTimeout(timer);
  }, [query, open, run]);

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        closeLabel={t("common.close")}
        className="top-[10dvh] max-h-[80dvh] max-w-xl translate-y-0 grid-rows-[auto_auto_minmax(0,1fr)]"
        onCloseAutoFocus={(event) => {
          const id = chosen.current;
          chosen.current = null;
          if (id === null) return;
          event.preventDefault(); // the message takes the focus, not the search button
          onChoose(id);
        }}
      >
        <DialogHeader>
          <DialogTitle>{t("chatflow.search.title", { name: kin.name })}</DialogTitle>
          <DialogDescription>{t("chatflow.search.description")}</DialogDescription>
        </DialogHeader>
        <form
          role="search"
          className="flex gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            void run(query);
          }}
        >
          <label className="sr-only" htmlFor="history-search">
            {t("chatflow.search.label")}
          </label>
          <Input id="history-search" type="search" value={query} onChange={(event) => setQuery(event.target.value)} placeholder={t("chatflow.search.placeholder")} autoComplete="off" />
          <Button type="submit" size="icon" aria-label={t("chatflow.search.submit")}>
            <SearchIcon />
          </Button>
        </form>
        <div className="-mx-2 min-h-0 overflow-y-auto px-2" aria-live="polite">
          {search.state === "searching" ? (
            <p className="flex items-center gap-2 text-sm text-muted-foreground">
              <LoaderCircleIcon className="size-4 animate-spin motion-reduce:animate-none" aria-hidden /> {t("chatflow.search.searching")}
            </p>
          ) : search.state === "failed" ? (
            <p className="text-sm text-destructive">{t("chatflow.search.failed", { error: search.error })}</p>
          ) : search.state === "done" && search.results.length === 0 ? (
            <p className="text-sm text-muted-foreground">{t("chatflow.search.none", { query: search.query })}</p>
          ) : search.state === "done" ? (
            <>
              <p className="mb-2 text-xs font-semibold text-muted-foreground">{t("chatflow.search.results", { count: search.results.length })}</p>
              <ul className="flex flex-col gap-1.5" aria-label={t("chatflow.search.results", { count: search.results.length })}>
                {search.results.map((result) => (
                  <li key={result.message_id}>
                    <button
                      type="button"
                      data-result-id={result.message_id}
                      className="w-full rounded-xl border border-border/70 bg-card px-3 py-2 text-left text-sm transition-colors hover:bg-accent/70 focus-visible:outline-2 focus-visible:outline-ring"
                      aria-describedby={`history-result-${result.message_id}`}
                      onClick={() => {
                        chosen.current = result.message_id;
                        onOpenChange(false);
                      }}
                    >
                      <span className="flex items-baseline justify-between gap-2">
                        <span className="truncate font-semibold">{result.role === "assistant" ? kin.name : (result.sender_name ?? kin.name)}</span>
                        <time className="shrink-0 text-xs text-muted-foreground" dateTime={new Date(result.created_at * 1000).toISOString()}>
                          {dates.format(new Date(result.created_at * 1000))}
                        </time>
                      </span>
                      <span className="mt-0.5 line-clamp-3 block text-muted-foreground">
                        <Highlighted text={result.snippet} query={search.query} />
                      </span>
                      <span id={`history-result-${result.message_id}`} className="sr-only">
                        {t("chatflow.search.open_result")}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      </DialogContent>
    </Dialog>
  );
}
