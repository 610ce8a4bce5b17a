import { cn } from "@/lib/utils";
import type { serverLine } from "@/lib/mcp";

/** The line under an MCP server's name (`serverLine`): its tools' names cut to one line, a
 * sentence (what went wrong) shown whole, wrapped on a phone. */
export function ServerLine({ line, className }: { line: ReturnType<typeof serverLine>; className?: string }) {
  return <p className={cn("text-xs text-muted-foreground", line.sentence ? "wrap-break-word" : "truncate", className)}>{line.text}</p>;
}
